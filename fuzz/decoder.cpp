// Feeds: 32-bit words to the RV32IM decoder (manycore::isa::decode, src/manycore/isa/decode.cpp),
// then the same words as the code of a one-node program run for a few thousand cycles, so that the
// core executes whatever the decoder made of them, on whatever operands they compute. A bug: a
// crash or sanitizer report (e.g. an overflowing shift, division or address in the core); a decoded
// instruction that does not re-encode to its word (another major opcode, register fields or an
// immediate that are not the word's bits in the format's places, a store, branch or system
// instruction with a destination register); a run that throws anything but SimFault (the program
// misbehaved) or UsageError.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "conveyor/sim.hpp"
#include "fuzz_check.hpp"
#include "isa/decode.hpp"

namespace {

using conveyor::fuzz::check;
using conveyor::manycore::isa::Insn;
using conveyor::manycore::isa::Op;

std::uint32_t bits(std::uint32_t word, int hi, int lo) {
  return (word >> lo) & ((1u << (hi - lo + 1)) - 1);
}

enum class Format { kR, kI, kS, kB, kU, kJ, kShift, kNone };

// The format and major opcode of each op, from the RISC-V unprivileged spec (chapters 2 and 7),
// written here independently of decode.cpp's table.
Format format_of(Op op, std::uint32_t& opcode) {
  switch (op) {
    case Op::kLui:
      opcode = 0x37;
      return Format::kU;
    case Op::kAuipc:
      opcode = 0x17;
      return Format::kU;
    case Op::kJal:
      opcode = 0x6f;
      return Format::kJ;
    case Op::kJalr:
      opcode = 0x67;
      return Format::kI;
    case Op::kBeq:
    case Op::kBne:
    case Op::kBlt:
    case Op::kBge:
    case Op::kBltu:
    case Op::kBgeu:
      opcode = 0x63;
      return Format::kB;
    case Op::kLb:
    case Op::kLh:
    case Op::kLw:
    case Op::kLbu:
    case Op::kLhu:
      opcode = 0x03;
      return Format::kI;
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
      opcode = 0x23;
      return Format::kS;
    case Op::kSlli:
    case Op::kSrli:
    case Op::kSrai:
      opcode = 0x13;
      return Format::kShift;
    case Op::kAddi:
    case Op::kSlti:
    case Op::kSltiu:
    case Op::kXori:
    case Op::kOri:
    case Op::kAndi:
      opcode = 0x13;
      return Format::kI;
    case Op::kFence:
      opcode = 0x0f;
      return Format::kNone;
    case Op::kEcall:
    case Op::kEbreak:
      opcode = 0x73;
      return Format::kNone;
    default:  // the register-register ops, base and M extension
      opcode = 0x33;
      return Format::kR;
  }
}

// Decode, then re-encode: every field the decoder filled must be the word's own bits, placed as
// the instruction's format says. This checks each immediate's bit scramble and sign extension
// against a second implementation.
void check_insn(std::uint32_t word, const Insn& insn) {
  check(insn.op < Op::kCount, "decode gave an op out of range");
  check(insn.rd < 32 && insn.rs1 < 32 && insn.rs2 < 32, "decode gave a register above x31");
  check(std::strlen(conveyor::manycore::isa::op_name(insn.op)) > 0, "op_name gave no name");
  check(conveyor::manycore::isa::decode(word).op == insn.op, "decode is not deterministic");
  if (insn.op == Op::kIllegal) {
    check(insn.rd == 0 && insn.rs1 == 0 && insn.rs2 == 0 && insn.imm == 0,
          "an illegal instruction carries fields");
    return;
  }
  std::uint32_t opcode = 0;
  const Format format = format_of(insn.op, opcode);
  check(bits(word, 6, 0) == opcode, "decode gave an op of another major opcode");
  check(insn.rs1 == bits(word, 19, 15) && insn.rs2 == bits(word, 24, 20),
        "a source register is not the word's rs1/rs2 field");
  const bool writes = format != Format::kS && format != Format::kB && format != Format::kNone;
  // The core writes rd unconditionally: stores, branches and system ops must carry rd = 0.
  check(insn.rd == (writes ? bits(word, 11, 7) : 0u), "rd is not the word's rd field (or not 0)");
  const auto imm = static_cast<std::uint32_t>(insn.imm);
  switch (format) {
    case Format::kI:
      check(imm == static_cast<std::uint32_t>(static_cast<std::int32_t>(word) >> 20),
            "an I-type immediate is not bits 31:20 sign-extended");
      break;
    case Format::kS:
      check(bits(imm, 11, 5) == bits(word, 31, 25) && bits(imm, 4, 0) == bits(word, 11, 7) &&
                insn.imm >= -2048 && insn.imm <= 2047,
            "an S-type immediate does not re-encode to its word");
      break;
    case Format::kB:
      check(bits(imm, 12, 12) == bits(word, 31, 31) && bits(imm, 11, 11) == bits(word, 7, 7) &&
                bits(imm, 10, 5) == bits(word, 30, 25) && bits(imm, 4, 1) == bits(word, 11, 8) &&
                (imm & 1) == 0 && insn.imm >= -4096 && insn.imm <= 4094,
            "a B-type immediate does not re-encode to its word");
      break;
    case Format::kU:
      check(imm == (word & 0xfffff000u), "a U-type immediate is not bits 31:12");
      break;
    case Format::kJ:
      check(bits(imm, 20, 20) == bits(word, 31, 31) && bits(imm, 19, 12) == bits(word, 19, 12) &&
                bits(imm, 11, 11) == bits(word, 20, 20) && bits(imm, 10, 1) == bits(word, 30, 21) &&
                (imm & 1) == 0 && insn.imm >= -(1 << 20) && insn.imm < (1 << 20),
            "a J-type immediate does not re-encode to its word");
      break;
    case Format::kShift:
      // RV32: a shift amount is 5 bits; bit 25 set is an RV64 encoding and must be illegal.
      check(imm == bits(word, 24, 20) && bits(word, 25, 25) == 0,
            "a shift amount is not bits 24:20, or an RV64 shift was accepted");
      break;
    case Format::kR:
    case Format::kNone:
      check(insn.imm == 0, "an instruction without an immediate carries one");
      break;
  }
}

void put16(std::vector<std::uint8_t>& f, std::size_t at, std::uint16_t v) {
  std::memcpy(f.data() + at, &v, 2);
}
void put32(std::vector<std::uint8_t>& f, std::size_t at, std::uint32_t v) {
  std::memcpy(f.data() + at, &v, 4);
}

// The smallest executable the simulator takes: an ELF32 header, one PT_LOAD (R+X) program header,
// then `code` at address 0, which is also the entry point.
std::vector<std::uint8_t> executable(const std::uint8_t* code, std::size_t bytes) {
  constexpr std::size_t kHeader = 52, kPhdr = 32;
  std::vector<std::uint8_t> f(kHeader + kPhdr + bytes, 0);
  std::memcpy(f.data(),
              "\x7f"
              "ELF\x01\x01\x01",
              7);     // 32-bit, little-endian, version 1
  put16(f, 16, 2);    // ET_EXEC
  put16(f, 18, 243);  // EM_RISCV
  put32(f, 20, 1);
  put32(f, 24, 0);  // entry
  put32(f, 28, kHeader);
  put16(f, 40, kHeader);
  put16(f, 42, kPhdr);
  put16(f, 44, 1);
  put32(f, kHeader + 0, 1);  // PT_LOAD
  put32(f, kHeader + 4, kHeader + kPhdr);
  put32(f, kHeader + 16, static_cast<std::uint32_t>(bytes));
  put32(f, kHeader + 20, static_cast<std::uint32_t>(bytes));
  put32(f, kHeader + 24, 5);  // R+X
  std::memcpy(f.data() + kHeader + kPhdr, code, bytes);
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::size_t words = size / 4;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint32_t word;
    std::memcpy(&word, data + 4 * i, 4);
    check_insn(word, conveyor::manycore::isa::decode(word));
  }
  if (words == 0) return 0;
  conveyor::sim::SimConfig config;
  config.mesh_width = config.mesh_height = 1;
  config.local_memory_bytes = 64 * 1024;
  config.main_memory_bytes = 64 * 1024;
  config.max_cycles = 5000;  // enough to loop a little, short enough for thousands of runs a second
  try {
    conveyor::sim::run_elf_image(config, executable(data, 4 * words), "fuzz.elf", nullptr);
  } catch (const conveyor::sim::SimFault&) {
  } catch (const conveyor::UsageError&) {
  }
  return 0;
}
