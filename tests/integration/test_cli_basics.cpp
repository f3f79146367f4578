#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

TEST(CliBasics, HelpListsEveryCommandAndExitsZero) {
  CliResult r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"devices", "stream", "probe", "plot"})
    EXPECT_NE(r.out.find(command), std::string::npos) << command;
}

TEST(CliBasics, NoCommandIsAUsageError) {
  CliResult r = run_cli("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(CliBasics, UnknownCommandIsOneLineAndExitTwo) {
  CliResult r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
}

// cuBLAS and cuSOLVER (with the cuBLASLt, cuSPARSE and nvJitLink they load) cost a process about
// 0.15 s at start: they are opened by the first CUDA task, never by a run without one. The loader's
// list of what it loaded (LD_DEBUG=files) must name the BLAS the CPU kernels use and no CUDA
// library.
TEST(CliStartup, RunsWithoutACudaTaskNeverLoadCublasOrCusolver) {
  for (const char* args : {"--help", "devices", "cholesky --n 128 --block 32 --devices cpu --check",
                           "qr --n 64 --block 32 --check"}) {
    CliResult r = run_program(std::string("LD_DEBUG=files ") + CONVEYOR_CLI, args);
    ASSERT_TRUE(r.exit_code == 0 || r.err.find("needs LAPACKE") != std::string::npos) << args;
    EXPECT_NE(r.err.find("libfmt"), std::string::npos) << args << ": no list of loaded libraries";
    EXPECT_EQ(r.err.find("libcublas"), std::string::npos) << args;
    EXPECT_EQ(r.err.find("libcusolver"), std::string::npos) << args;
  }
}

TEST(CliDevices, TableNamesTheCpu) {
  CliResult r = run_cli("devices");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Last-level cache"), std::string::npos);
  EXPECT_NE(r.out.find("\ncpu "), std::string::npos) << r.out;
}

TEST(CliDevices, JsonFollowsTheResultSchema) {
  CliResult r = run_cli("devices --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const char* key :
       {"conveyor", "schema", "command", "machine", "build", "options", "date", "results"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["command"], "devices");
  ASSERT_FALSE(doc["results"].empty());
  EXPECT_EQ(doc["results"][0]["id"], "cpu");
  EXPECT_GT(doc["results"][0]["memory_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_GT(doc["machine"]["llc_total_bytes"].get<std::uint64_t>(), 0u);
}

TEST(CliDevices, JsonOutToAnUnwritablePathIsARuntimeError) {
  CliResult r = run_cli("devices --json-out /nonexistent-dir/x.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test
