#pragma once
// RV32IM decoding: a constexpr match/mask table (one row per instruction) and the predecoded form
// the core executes, so that no instruction is decoded twice.
#include <cstdint>

namespace conveyor::manycore::isa {

enum class Op : uint8_t {
  kIllegal,
  kLui,
  kAuipc,
  kJal,
  kJalr,
  kBeq,
  kBne,
  kBlt,
  kBge,
  kBltu,
  kBgeu,
  kLb,
  kLh,
  kLw,
  kLbu,
  kLhu,
  kSb,
  kSh,
  kSw,
  kAddi,
  kSlti,
  kSltiu,
  kXori,
  kOri,
  kAndi,
  kSlli,
  kSrli,
  kSrai,
  kAdd,
  kSub,
  kSll,
  kSlt,
  kSltu,
  kXor,
  kSrl,
  kSra,
  kOr,
  kAnd,
  kFence,
  kEcall,
  kEbreak,
  kMul,
  kMulh,
  kMulhsu,
  kMulhu,
  kDiv,
  kDivu,
  kRem,
  kRemu,
  kCount
};

/// One predecoded instruction: 8 bytes, immediates already sign-extended.
struct Insn {
  Op op = Op::kIllegal;
  uint8_t rd = 0, rs1 = 0, rs2 = 0;
  int32_t imm = 0;
};

Insn decode(uint32_t word);
const char* op_name(Op op);

}  // namespace conveyor::manycore::isa
