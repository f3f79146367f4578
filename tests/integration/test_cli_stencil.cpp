// conveyor stencil from the command line: a checked run, JSON rows with the copies and the
// traffic, out of core on opencl:0 when it is present, and bad input as one line with exit 2
// (distributed runs: tests/CMakeLists.txt's mpi_stencil_*, test_cli_cluster.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

TEST(CliStencil, CheckedCpuRunPrintsGbsAndPasses) {
  CliResult r = run_cli("stencil --n 300 --block 64 --sweeps 4 --cpus 2 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 x 5 tiles, 4 sweeps, 100 tasks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Copies between host and devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu worker 1"), std::string::npos) << r.out;
}

TEST(CliStencil, JsonRowCarriesTrafficCopiesAndTheCheck) {
  CliResult r = run_cli("stencil --n 100 --block 30 --sweeps 3 --cpus 2 --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "stencil");
  ASSERT_EQ(doc["results"].size(), 1u);
  const auto& row = doc["results"][0];
  for (const char* key :
       {"n", "block", "tiles", "sweeps", "devices", "time_s", "gbs", "sweep_bytes", "tasks",
        "h2d_copies", "d2h_copies", "total_copies", "evictions", "mismatches", "check", "workers"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row["tiles"], 4);  // the last tile 10 wide
  EXPECT_EQ(row["tasks"], 3 * 16);
  EXPECT_EQ(row["sweep_bytes"].get<double>(), 2.0 * 8 * 100 * 100);
  EXPECT_EQ(row["mismatches"], 0);
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["total_copies"], 0);  // CPU workers use the grids in place
}

TEST(CliStencil, OutOfCoreOnOpenclIsExact) {
  if (!opencl_present()) GTEST_SKIP() << "no opencl:0";
  CliResult r = run_cli(
      "stencil --n 64 --block 16 --sweeps 2 --devices opencl:0 --sched eager --device-memory 16KiB "
      "--no-warmup --check --json");
  if (r.exit_code == 2 && r.err.find("cl_khr_fp64") != std::string::npos)
    GTEST_SKIP() << "no double precision";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& row = doc["results"][0];
  EXPECT_EQ(row["check"], "passed");
  EXPECT_GT(row["evictions"].get<int>(), 0);
  EXPECT_GT(row["h2d_copies"].get<int>(), 0);
  EXPECT_EQ(row["device_memory_limit_bytes"], 16 * 1024);
}

TEST(CliStencil, TwoDevicesShareTheGridAndStayExact) {
  // Two OpenCL devices (PoCL makes two when POCL_DEVICES names two), each tile's task on either:
  // the halo strips a task reads were often written on the other device and must reach it. A
  // cache directory of its own: another device set makes the runtime measure and save its models.
  if (!opencl_present()) GTEST_SKIP() << "no opencl:0";
  ScratchDir cache;
  CliResult r = run_program(
      "POCL_DEVICES='pthread pthread' XDG_CACHE_HOME=" + cache.dir().string() + " " CONVEYOR_CLI,
      "stencil --n 300 --block 64 --sweeps 4 --devices opencl:0,opencl:1 --sched eager "
      "--no-warmup --check --json");
  if (r.exit_code == 2 && r.err.find("opencl:1") != std::string::npos)
    GTEST_SKIP() << "no second OpenCL device (POCL_DEVICES is PoCL's)";
  if (r.exit_code == 2 && r.err.find("cl_khr_fp64") != std::string::npos)
    GTEST_SKIP() << "no double precision";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["mismatches"], 0);
  EXPECT_EQ(row["workers"].size(), 2u);
  std::uint64_t tasks = 0;
  for (const auto& w : row["workers"]) tasks += w["tasks"].get<std::uint64_t>();
  EXPECT_EQ(tasks, 4u * 25);
  EXPECT_GT(row["h2d_copies"].get<int>(), 0);
}

TEST(CliStencil, TemporalBlockRunsInRoundsAndPasses) {
  // 5 sweeps in rounds of 2: 2, 2, 1; the last tiles 10 wide.
  CliResult r = run_cli(
      "stencil --n 100 --block 30 --sweeps 5 --cpus 2 --temporal-block 2 --no-warmup --check "
      "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["temporal_block"], 2);
  EXPECT_EQ(row["rounds"], 3);
  EXPECT_EQ(row["tasks"], 3 * 16);
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["mismatches"], 0);
}

TEST(CliStencil, BadInputIsOneLineAndExitTwo) {
  for (const char* args :
       {"--n 0", "--n -4", "--block 0", "--block -3", "--sweeps 0", "--repeat 0", "--cpus 0",
        "--devices nonesuch:3", "--devices cpu --device-memory 1MiB",
        "--n 64 --devices opencl:0 --device-memory 0",
        "--n 512 --block 128 --devices opencl:0 --device-memory 64KiB", "--n 64 --sched fastest",
        "--n 4000000", "--bogus",
        // without mpirun a one-rank job (or a build without MPI says so)
        "--n 64 --grid 1x2", "--n 64 --grid 2y2", "--n 64 --sim-run-kernels",
        // temporal blocking: below 1, wider than the last tile (37 = 4 * 8 + 5), on several ranks
        "--n 64 --temporal-block 0", "--n 37 --block 8 --temporal-block 6",
        "--n 64 --block 16 --temporal-block 2 --grid 1x1",
        // a simulated node runs (test_cli_twin.cpp), but only with the workers it has
        "--n 64 --platform " CONVEYOR_SOURCE_DIR "/platforms/h200-node.json --devices cuda:7",
        // a simulation that runs no kernels has nothing to check
        "--n 64 --platform " CONVEYOR_SOURCE_DIR "/platforms/h200-node.json --check"}) {
    SCOPED_TRACE(args);
    CliResult r = run_cli(std::string("stencil ") + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

// A simulated node that runs no kernels only passes tile addresses around: its grids are reserved,
// not backed, so a grid far larger than this machine's memory (2 x 32 GiB) runs, in virtual time.
TEST(CliStencil, ASimulatedNodeNeedsNoMemoryForItsGrids) {
  CliResult r = run_cli("stencil --n 65536 --sweeps 1 --platform " CONVEYOR_SOURCE_DIR
                        "/platforms/h200-node.json --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& row = doc["results"][0];
  EXPECT_TRUE(doc["options"]["platform"].is_string()) << doc["options"].dump();
  EXPECT_GT(row["time_s"].get<double>(), 0.0);
  EXPECT_EQ(row["tasks"], 32 * 32);  // tiles of 2048, one sweep
}

TEST(CliStencil, HelpTeachesWithExamples) {
  CliResult r = run_cli("stencil --help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* text :
       {"Examples:", "--sweeps", "--device-memory", "--check", "2 * 8 * n^2", "--temporal-block 4"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

}  // namespace
}  // namespace conveyor::test
