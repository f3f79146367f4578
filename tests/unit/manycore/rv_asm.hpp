#pragma once
// A tiny RV32IM assembler and ELF32 writer for the simulator's tests: a program is a list of
// instruction words placed at address 0; it ends by storing a0 to the EXIT register, so the
// node's exit code is the value under test.
#include <cstdint>
#include <cstring>
#include <vector>

namespace conveyor::sim::test {

enum Reg : uint32_t {
  zero = 0,
  ra = 1,
  sp = 2,
  t0 = 5,
  t1 = 6,
  t2 = 7,
  a0 = 10,
  a1 = 11,
  a2 = 12,
  a3 = 13
};

inline uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd,
                       uint32_t op) {
  return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
inline uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return (static_cast<uint32_t>(imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
inline uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((u & 0x1f) << 7) |
         0x23;
}
inline uint32_t b_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 12) & 1) << 31) | (((u >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
         (f3 << 12) | (((u >> 1) & 0xf) << 8) | (((u >> 11) & 1) << 7) | 0x63;
}
inline uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t op) {
  return (imm20 << 12) | (rd << 7) | op;
}
inline uint32_t j_type(int32_t imm, uint32_t rd) {
  uint32_t u = static_cast<uint32_t>(imm);
  return (((u >> 20) & 1) << 31) | (((u >> 1) & 0x3ff) << 21) | (((u >> 11) & 1) << 20) |
         (((u >> 12) & 0xff) << 12) | (rd << 7) | 0x6f;
}

inline uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) {
  return i_type(imm, rs1, 0, rd, 0x13);
}
inline uint32_t lui(uint32_t rd, uint32_t imm20) { return u_type(imm20, rd, 0x37); }
inline uint32_t alu(uint32_t f7, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return r_type(f7, rs2, rs1, f3, rd, 0x33);
}

/// li rd, value (lui + addi).
inline void li(std::vector<uint32_t>& p, uint32_t rd, int32_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  uint32_t hi = (v + 0x800) >> 12;
  p.push_back(lui(rd, hi & 0xfffff));
  p.push_back(addi(rd, rd, static_cast<int32_t>(v << 20) >> 20));
}

/// Appends: store a0 to the EXIT register (0xF0000014), then spin.
inline void exit_with_a0(std::vector<uint32_t>& p) {
  p.push_back(lui(t2, 0xF0000));
  p.push_back(s_type(0x14, a0, t2, 2));
  p.push_back(j_type(0, zero));
}

/// An ELF32 RISC-V executable: `code` at address 0 (RX), `data` at 0x1000 (RW).
inline std::vector<uint8_t> make_elf(const std::vector<uint32_t>& code,
                                     const std::vector<uint8_t>& data = {}) {
  std::vector<uint8_t> f(0x2000 + data.size(), 0);
  auto put16 = [&](size_t o, uint16_t v) { std::memcpy(&f[o], &v, 2); };
  auto put32 = [&](size_t o, uint32_t v) { std::memcpy(&f[o], &v, 4); };
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  std::memcpy(f.data(), ident, sizeof(ident));
  put16(16, 2);    // ET_EXEC
  put16(18, 243);  // EM_RISCV
  put32(20, 1);
  put32(24, 0);   // entry
  put32(28, 52);  // phoff
  put16(40, 52);
  put16(42, 32);
  put16(44, data.empty() ? 1 : 2);
  const size_t ph = 52;
  put32(ph + 0, 1);
  put32(ph + 4, 0x1000);  // offset of the code in the file
  put32(ph + 8, 0);
  put32(ph + 16, static_cast<uint32_t>(code.size() * 4));
  put32(ph + 20, static_cast<uint32_t>(code.size() * 4));
  put32(ph + 24, 5);
  if (code.size() * 4 > 0x1000) f.resize(0x1000 + code.size() * 4 + data.size());
  std::memcpy(&f[0x1000], code.data(), code.size() * 4);
  if (!data.empty()) {
    size_t off = f.size() - data.size();
    put32(ph + 32, 1);
    put32(ph + 36, static_cast<uint32_t>(off));
    put32(ph + 40, 0x1000);
    put32(ph + 48, static_cast<uint32_t>(data.size()));
    put32(ph + 52, static_cast<uint32_t>(data.size()));
    put32(ph + 56, 6);
    std::memcpy(&f[off], data.data(), data.size());
  }
  return f;
}

}  // namespace conveyor::sim::test
