// One test per RV32IM instruction class: each program leaves its result in a0 and exits with it,
// so the node's exit code is compared with the value the ISA manual defines.
#include <gtest/gtest.h>

#include "conveyor/sim.hpp"
#include "rv_asm.hpp"

namespace conveyor::sim::test {
namespace {

SimConfig one_node() {
  SimConfig c;
  c.mesh_width = c.mesh_height = 1;
  c.local_memory_bytes = 64 * 1024;
  c.max_cycles = 10000;
  return c;
}

int run_program(std::vector<uint32_t> p, const std::vector<uint8_t>& data = {}) {
  exit_with_a0(p);
  SimResult r = run_elf_image(one_node(), make_elf(p, data), "test", nullptr);
  return r.nodes.at(0).exit_code;
}

/// a0 = OP(a1, a2) for an R-type instruction, with a1 and a2 loaded first.
int binary(uint32_t f7, uint32_t f3, int32_t x, int32_t y) {
  std::vector<uint32_t> p;
  li(p, a1, x);
  li(p, a2, y);
  p.push_back(alu(f7, f3, a0, a1, a2));
  return run_program(p);
}

TEST(SimIsa, RegisterArithmeticAndLogic) {
  EXPECT_EQ(binary(0x00, 0, 7, -3), 4);                // add
  EXPECT_EQ(binary(0x20, 0, 7, 10), -3);               // sub
  EXPECT_EQ(binary(0x00, 4, 0x0ff0, 0x00ff), 0x0f0f);  // xor
  EXPECT_EQ(binary(0x00, 6, 0x0f00, 0x00f0), 0x0ff0);  // or
  EXPECT_EQ(binary(0x00, 7, 0x0ff0, 0x00ff), 0x00f0);  // and
  EXPECT_EQ(binary(0x00, 2, -1, 1), 1);                // slt
  EXPECT_EQ(binary(0x00, 3, -1, 1), 0);                // sltu: 0xffffffff > 1
}

TEST(SimIsa, Shifts) {
  EXPECT_EQ(binary(0x00, 1, 1, 33), 2);            // sll uses the low 5 bits
  EXPECT_EQ(binary(0x00, 5, -16, 2), 0x3ffffffc);  // srl
  EXPECT_EQ(binary(0x20, 5, -16, 2), -4);          // sra
  std::vector<uint32_t> p;
  li(p, a1, -64);
  p.push_back(i_type(0x400 | 3, a1, 5, a0, 0x13));  // srai a0, a1, 3
  EXPECT_EQ(run_program(p), -8);
}

TEST(SimIsa, ImmediateArithmetic) {
  std::vector<uint32_t> p;
  li(p, a1, 100);
  p.push_back(addi(a0, a1, -101));              // addi
  p.push_back(i_type(-1, a0, 3, a0, 0x13));     // sltiu a0, a0, -1: 0xffffffff < 0xffffffff = 0
  p.push_back(i_type(0x7f, a0, 4, a0, 0x13));   // xori -> 0x7f
  p.push_back(i_type(0x100, a0, 6, a0, 0x13));  // ori -> 0x17f
  p.push_back(i_type(0x0f0, a0, 7, a0, 0x13));  // andi -> 0x070
  p.push_back(i_type(2, a0, 1, a0, 0x13));      // slli -> 0x1c0
  EXPECT_EQ(run_program(p), 0x1c0);
}

TEST(SimIsa, UpperImmediates) {
  std::vector<uint32_t> p;
  p.push_back(lui(a0, 0x12345));
  p.push_back(u_type(0x1, a1, 0x17));     // auipc a1, 1 at pc 4 -> 0x1004
  p.push_back(alu(0x20, 0, a0, a0, a1));  // a0 = 0x12345000 - 0x1004
  EXPECT_EQ(run_program(p), 0x12345000 - 0x1004);
}

TEST(SimIsa, BranchesTakenAndNot) {
  // For each branch: a0 += 1 when taken; 6 branches taken, 6 not.
  std::vector<uint32_t> p;
  li(p, a0, 0);
  li(p, a1, -5);
  li(p, a2, 3);
  const uint32_t f3s[] = {0, 1, 4, 5, 6, 7};
  const bool taken_ab[] = {false, true, true, false, false, true};  // -5 vs 3 (unsigned: big)
  int expected = 0;
  for (int i = 0; i < 6; ++i) {
    for (int order = 0; order < 2; ++order) {
      uint32_t x = order ? a2 : a1, y = order ? a1 : a2;
      p.push_back(b_type(8, y, x, f3s[i]));  // if cond goto +8
      p.push_back(j_type(8, zero));          // not taken: skip the increment
      p.push_back(addi(a0, a0, 1));
      bool taken = order ? (f3s[i] == 0 ? false : f3s[i] == 1 ? true : !taken_ab[i]) : taken_ab[i];
      expected += taken;
    }
  }
  EXPECT_EQ(run_program(p), expected);
}

TEST(SimIsa, JumpsLinkAndReturn) {
  std::vector<uint32_t> p;
  p.push_back(addi(a0, zero, 1));             // 0
  p.push_back(j_type(12, ra));                // 4: call 16
  p.push_back(addi(a0, a0, 100));             // 8: after return
  p.push_back(j_type(12, zero));              // 12: to 24 (exit)
  p.push_back(addi(a0, a0, 10));              // 16: function body
  p.push_back(i_type(0, ra, 0, zero, 0x67));  // 20: jalr x0, ra
  EXPECT_EQ(run_program(p), 111);
}

TEST(SimIsa, LoadsAndStoresOfEveryWidth) {
  std::vector<uint8_t> data = {0x81, 0x82, 0x83, 0x84, 0, 0, 0, 0};
  std::vector<uint32_t> p;
  li(p, a1, 0x1000);
  p.push_back(i_type(0, a1, 0, a2, 0x03));  // lb  -> 0xffffff81
  p.push_back(i_type(0, a1, 4, a3, 0x03));  // lbu -> 0x81
  p.push_back(alu(0, 0, a0, a2, a3));       // a0 = -127 + 129 = 2
  p.push_back(i_type(2, a1, 1, a2, 0x03));  // lh  0x8483 -> negative
  p.push_back(i_type(2, a1, 5, a3, 0x03));  // lhu 0x8483
  p.push_back(alu(0x20, 0, a2, a3, a2));    // a3 - a2 = 0x10000
  p.push_back(alu(0, 0, a0, a0, a2));       // a0 = 0x10002
  p.push_back(s_type(4, a0, a1, 2));        // sw a0 -> [0x1004]
  p.push_back(s_type(5, a1, a1, 0));        // sb 0x00 -> [0x1005]
  p.push_back(s_type(6, a1, a1, 1));        // sh 0x1000 -> [0x1006]
  p.push_back(i_type(4, a1, 2, a0, 0x03));  // lw -> 0x10000002 ... bytes 02 00 00 10
  EXPECT_EQ(run_program(p, data), 0x10000002);
}

TEST(SimIsa, Multiplication) {
  EXPECT_EQ(binary(0x01, 0, -7, 6), -42);          // mul
  EXPECT_EQ(binary(0x01, 1, -2, 0x40000000), -1);  // mulh: -2^31 >> 32
  EXPECT_EQ(binary(0x01, 3, -1, -1), -2);          // mulhu: 0xfffffffe
  EXPECT_EQ(binary(0x01, 2, -1, -1), -1);          // mulhsu: -1 * (2^32-1) high
}

TEST(SimIsa, DivisionAndItsCornerCases) {
  EXPECT_EQ(binary(0x01, 4, -7, 2), -3);                 // div truncates
  EXPECT_EQ(binary(0x01, 6, -7, 2), -1);                 // rem has the dividend's sign
  EXPECT_EQ(binary(0x01, 5, -7, 2), 0x7ffffffc);         // divu
  EXPECT_EQ(binary(0x01, 7, 7, 3), 1);                   // remu
  EXPECT_EQ(binary(0x01, 4, 5, 0), -1);                  // div by 0
  EXPECT_EQ(binary(0x01, 6, 5, 0), 5);                   // rem by 0
  EXPECT_EQ(binary(0x01, 4, INT32_MIN, -1), INT32_MIN);  // overflow
  EXPECT_EQ(binary(0x01, 6, INT32_MIN, -1), 0);
}

TEST(SimIsa, RegisterZeroStaysZero) {
  std::vector<uint32_t> p;
  p.push_back(addi(zero, zero, 5));
  p.push_back(addi(a0, zero, 0));
  EXPECT_EQ(run_program(p), 0);
}

void expect_fault(std::vector<uint32_t> p, const std::string& needle) {
  exit_with_a0(p);
  try {
    run_elf_image(one_node(), make_elf(p), "test", nullptr);
    FAIL() << "no fault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("node 0 pc 0x"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(SimIsa, TrapsStopWithNodePcAndCause) {
  expect_fault({0xffffffffu}, "illegal instruction 0xffffffff");
  expect_fault({0x00000073u}, "ecall");
  std::vector<uint32_t> p;
  li(p, a1, 0x1002);
  p.push_back(i_type(0, a1, 2, a0, 0x03));
  expect_fault(p, "misaligned 4-byte load");
  p.clear();
  li(p, a1, 0x200000);
  p.push_back(s_type(0, a0, a1, 2));
  expect_fault(p, "outside local memory");
  p.clear();
  p.push_back(s_type(0, a0, zero, 2));
  expect_fault(p, "inside the code");
  p.clear();
  p.push_back(j_type(0x800, zero));
  expect_fault(p, "instruction fetch outside the code");
}

TEST(SimIsa, CycleLimitStopsAnEndlessLoop) {
  std::vector<uint32_t> p = {j_type(0, zero)};
  expect_fault(p, "cycle limit 10000");
}

TEST(SimIsa, BadElfIsAUsageError) {
  std::vector<uint8_t> junk(100, 0);
  EXPECT_THROW(run_elf_image(one_node(), junk, "junk", nullptr), UsageError);
  auto elf = make_elf({0});
  elf[18] = 62;  // x86-64
  EXPECT_THROW(run_elf_image(one_node(), elf, "x86", nullptr), UsageError);
}

// Regression found by fuzz/elf_loader.cpp (fuzz/corpus/elf_loader/crash_phentsize_zero): a
// 65-byte file whose program headers are 0 bytes apart, 4912 of them, all the same 384 KiB data
// segment. The loader refused it in the end (no executable segment), but only after allocating
// 1.8 GB: out of memory under the fuzzer. Now the entry size is checked first.
TEST(SimIsa, ProgramHeadersSmallerThanElf32AreRefused) {
  const std::vector<uint8_t> crash = {
      0x7f, 0x45, 0x4c, 0x46, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x02, 0x00, 0xf3, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xb7, 0x02, 0xff,
      0xff, 0x13, 0x15, 0x00, 0x00, 0x30, 0x13, 0x03, 0xa0, 0x00, 0x34, 0x05, 0x65,
      0x00, 0x13, 0x03, 0xf3, 0xff, 0x23, 0x13, 0x93, 0xfc, 0x23, 0xaa, 0xa2, 0x00};
  SimConfig config = one_node();
  config.local_memory_bytes = 512 * 1024;  // the default, as the fuzzer ran: the segment fits
  EXPECT_THROW(run_elf_image(config, crash, "crash", nullptr), UsageError);
  std::vector<uint32_t> p;
  exit_with_a0(p);  // exits with 0
  auto elf = make_elf(p);
  elf[42] = 16;  // e_phentsize: half an Elf32_Phdr
  EXPECT_THROW(run_elf_image(one_node(), elf, "short", nullptr), UsageError);
  elf[42] = 40;  // larger entries are allowed (the one entry is read, the rest skipped)
  EXPECT_EQ(run_elf_image(one_node(), elf, "wide", nullptr).nodes.at(0).exit_code, 0);
}

}  // namespace
}  // namespace conveyor::sim::test
