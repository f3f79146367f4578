#include "isa/decode.hpp"

#include <array>

namespace conveyor::manycore::isa {
namespace {

enum class Format : uint8_t { kR, kI, kS, kB, kU, kJ, kShift, kNone };

struct Pattern {
  uint32_t match;
  uint32_t mask;
  Op op;
  Format format;
  const char* name;
};

constexpr uint32_t kOpcode = 0x7f;
constexpr uint32_t kFunct3 = 0x707f;
constexpr uint32_t kFunct7 = 0xfe00707f;

// The RV32IM base encodings (unprivileged spec, chapter 2 and 7). Shifts by immediate check
// funct7 too, so that RV64 shift amounts (bit 25 set) are illegal here.
constexpr std::array kPatterns = {
    Pattern{0x00000037, kOpcode, Op::kLui, Format::kU, "lui"},
    Pattern{0x00000017, kOpcode, Op::kAuipc, Format::kU, "auipc"},
    Pattern{0x0000006f, kOpcode, Op::kJal, Format::kJ, "jal"},
    Pattern{0x00000067, kFunct3, Op::kJalr, Format::kI, "jalr"},
    Pattern{0x00000063, kFunct3, Op::kBeq, Format::kB, "beq"},
    Pattern{0x00001063, kFunct3, Op::kBne, Format::kB, "bne"},
    Pattern{0x00004063, kFunct3, Op::kBlt, Format::kB, "blt"},
    Pattern{0x00005063, kFunct3, Op::kBge, Format::kB, "bge"},
    Pattern{0x00006063, kFunct3, Op::kBltu, Format::kB, "bltu"},
    Pattern{0x00007063, kFunct3, Op::kBgeu, Format::kB, "bgeu"},
    Pattern{0x00000003, kFunct3, Op::kLb, Format::kI, "lb"},
    Pattern{0x00001003, kFunct3, Op::kLh, Format::kI, "lh"},
    Pattern{0x00002003, kFunct3, Op::kLw, Format::kI, "lw"},
    Pattern{0x00004003, kFunct3, Op::kLbu, Format::kI, "lbu"},
    Pattern{0x00005003, kFunct3, Op::kLhu, Format::kI, "lhu"},
    Pattern{0x00000023, kFunct3, Op::kSb, Format::kS, "sb"},
    Pattern{0x00001023, kFunct3, Op::kSh, Format::kS, "sh"},
    Pattern{0x00002023, kFunct3, Op::kSw, Format::kS, "sw"},
    Pattern{0x00000013, kFunct3, Op::kAddi, Format::kI, "addi"},
    Pattern{0x00002013, kFunct3, Op::kSlti, Format::kI, "slti"},
    Pattern{0x00003013, kFunct3, Op::kSltiu, Format::kI, "sltiu"},
    Pattern{0x00004013, kFunct3, Op::kXori, Format::kI, "xori"},
    Pattern{0x00006013, kFunct3, Op::kOri, Format::kI, "ori"},
    Pattern{0x00007013, kFunct3, Op::kAndi, Format::kI, "andi"},
    Pattern{0x00001013, kFunct7, Op::kSlli, Format::kShift, "slli"},
    Pattern{0x00005013, kFunct7, Op::kSrli, Format::kShift, "srli"},
    Pattern{0x40005013, kFunct7, Op::kSrai, Format::kShift, "srai"},
    Pattern{0x00000033, kFunct7, Op::kAdd, Format::kR, "add"},
    Pattern{0x40000033, kFunct7, Op::kSub, Format::kR, "sub"},
    Pattern{0x00001033, kFunct7, Op::kSll, Format::kR, "sll"},
    Pattern{0x00002033, kFunct7, Op::kSlt, Format::kR, "slt"},
    Pattern{0x00003033, kFunct7, Op::kSltu, Format::kR, "sltu"},
    Pattern{0x00004033, kFunct7, Op::kXor, Format::kR, "xor"},
    Pattern{0x00005033, kFunct7, Op::kSrl, Format::kR, "srl"},
    Pattern{0x40005033, kFunct7, Op::kSra, Format::kR, "sra"},
    Pattern{0x00006033, kFunct7, Op::kOr, Format::kR, "or"},
    Pattern{0x00007033, kFunct7, Op::kAnd, Format::kR, "and"},
    Pattern{0x0000000f, kFunct3, Op::kFence, Format::kNone, "fence"},
    Pattern{0x0000100f, kFunct3, Op::kFence, Format::kNone, "fence.i"},
    Pattern{0x00000073, 0xffffffff, Op::kEcall, Format::kNone, "ecall"},
    Pattern{0x00100073, 0xffffffff, Op::kEbreak, Format::kNone, "ebreak"},
    Pattern{0x02000033, kFunct7, Op::kMul, Format::kR, "mul"},
    Pattern{0x02001033, kFunct7, Op::kMulh, Format::kR, "mulh"},
    Pattern{0x02002033, kFunct7, Op::kMulhsu, Format::kR, "mulhsu"},
    Pattern{0x02003033, kFunct7, Op::kMulhu, Format::kR, "mulhu"},
    Pattern{0x02004033, kFunct7, Op::kDiv, Format::kR, "div"},
    Pattern{0x02005033, kFunct7, Op::kDivu, Format::kR, "divu"},
    Pattern{0x02006033, kFunct7, Op::kRem, Format::kR, "rem"},
    Pattern{0x02007033, kFunct7, Op::kRemu, Format::kR, "remu"},
};

constexpr int32_t sext(uint32_t value, int bits) {
  const uint32_t sign = 1u << (bits - 1);
  return static_cast<int32_t>((value ^ sign) - sign);
}

constexpr uint32_t bits(uint32_t word, int hi, int lo) {
  return (word >> lo) & ((1u << (hi - lo + 1)) - 1);
}

int32_t immediate(uint32_t w, Format format) {
  switch (format) {
    case Format::kI:
      return sext(bits(w, 31, 20), 12);
    case Format::kShift:
      return static_cast<int32_t>(bits(w, 24, 20));
    case Format::kS:
      return sext((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12);
    case Format::kB:
      return sext((bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) |
                      (bits(w, 11, 8) << 1),
                  13);
    case Format::kU:
      return static_cast<int32_t>(w & 0xfffff000u);
    case Format::kJ:
      return sext((bits(w, 31, 31) << 20) | (bits(w, 19, 12) << 12) | (bits(w, 20, 20) << 11) |
                      (bits(w, 30, 21) << 1),
                  21);
    default:
      return 0;
  }
}

}  // namespace

Insn decode(uint32_t word) {
  for (const Pattern& p : kPatterns) {
    if ((word & p.mask) != p.match) continue;
    Insn insn;
    insn.op = p.op;
    insn.rd = static_cast<uint8_t>(bits(word, 11, 7));
    insn.rs1 = static_cast<uint8_t>(bits(word, 19, 15));
    insn.rs2 = static_cast<uint8_t>(bits(word, 24, 20));
    insn.imm = immediate(word, p.format);
    // The core writes rd unconditionally and clears x0 afterwards; formats without rd must not
    // clobber a register.
    if (p.format == Format::kS || p.format == Format::kB || p.format == Format::kNone) insn.rd = 0;
    return insn;
  }
  return Insn{};
}

const char* op_name(Op op) {
  for (const Pattern& p : kPatterns)
    if (p.op == op) return p.name;
  return "illegal";
}

}  // namespace conveyor::manycore::isa
