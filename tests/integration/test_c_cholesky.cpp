// examples/c_cholesky.c, the seed's block Cholesky written against the C interface: a checked
// CPU run, and on the OpenCL device (PoCL in CI) the copies of the seed's table 3 for 32 x 32
// tiles with gemm offloaded: 1425 coherent, 19840 naive.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

struct CopyRow {
  std::uint64_t h2d = 0, d2h = 0, total = 0;
  bool found = false;
};

/// The row "POLICY H2D D2H TOTAL" of the example's table.
CopyRow copy_row(const std::string& out, const std::string& policy) {
  std::istringstream lines(out);
  std::string line;
  CopyRow row;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == policy && (words >> row.h2d >> row.d2h >> row.total)) row.found = true;
  }
  return row;
}

TEST(CCholesky, CpuRunFactorisesTheSeedsGraph) {
  CliResult r = run_program(CONVEYOR_C_CHOLESKY, "--tiles 32 --block 4");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("5984 tasklets (4960 gemm)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": ok"), std::string::npos) << r.out;
  CopyRow coherent = copy_row(r.out, "coherent");
  ASSERT_TRUE(coherent.found) << r.out;
  EXPECT_EQ(coherent.total, 0u);  // no device: nothing to copy
}

TEST(CCholesky, OpenclRunHasTheSeedsTable3Copies) {
  if (run_cli("devices").out.find("opencl:0") == std::string::npos)
    GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_program(CONVEYOR_C_CHOLESKY, "--tiles 32 --block 4 --device opencl:0");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  CopyRow coherent = copy_row(r.out, "coherent"), naive = copy_row(r.out, "naive");
  ASSERT_TRUE(coherent.found && naive.found) << r.out;
  EXPECT_EQ(coherent.h2d, 960u);
  EXPECT_EQ(coherent.d2h, 465u);
  EXPECT_EQ(coherent.total, 1425u);
  EXPECT_EQ(naive.h2d, 14880u);
  EXPECT_EQ(naive.d2h, 4960u);
  EXPECT_EQ(naive.total, 19840u);
  EXPECT_NE(r.out.find(": ok"), std::string::npos) << r.out;
}

TEST(CCholesky, BadArgumentsExitWithUsage) {
  CliResult r = run_program(CONVEYOR_C_CHOLESKY, "--tiles 0");
  EXPECT_EQ(r.exit_code, 2);
  r = run_program(CONVEYOR_C_CHOLESKY, "--device opencl:99");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("opencl:99"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test
