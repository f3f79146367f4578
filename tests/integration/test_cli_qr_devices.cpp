// conveyor qr on devices and on a simulated node: a checked run with every task on opencl:0 (when
// present), the CPUs beside it, out of core through a small device memory, a single simulated node
// with and without its kernels run, and bad device input as one line with exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

const std::string kPlatforms = std::string(CONVEYOR_SOURCE_DIR) + "/platforms/";

// A build without LAPACKE refuses qr (exit 2, "needs LAPACKE"): the runs below are skipped there.
// Both asked once per process (each is a run of the CLI).
#define SKIP_WITHOUT_QR_OR_OPENCL()                             \
  if (!qr_available()) GTEST_SKIP() << "built without LAPACKE"; \
  if (!opencl_present()) GTEST_SKIP() << "no opencl:0 (no OpenCL)"

// Runs `args` and returns the one result row; skips where the device lacks double precision.
nlohmann::json row_of(const std::string& args) {
  CliResult r = run_cli("qr " + args + " --json");
  if (r.exit_code == 2 && r.err.find("cl_khr_fp64") != std::string::npos) return nullptr;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nullptr;
  return nlohmann::json::parse(r.out)["results"][0];
}

TEST(CliQrDevices, EveryTaskOnOpenclPassesTheCheck) {
  SKIP_WITHOUT_QR_OR_OPENCL();
  CliResult r = run_cli("qr --n 500 --block 96 --devices opencl:0 --check");
  if (r.exit_code == 2 && r.err.find("cl_khr_fp64") != std::string::npos)
    GTEST_SKIP() << "no double precision";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Copies between host and devices"), std::string::npos) << r.out;
  auto row = row_of("--n 500 --block 96 --devices opencl:0 --check");
  if (row.is_null()) GTEST_SKIP() << "no double precision";
  EXPECT_EQ(row["devices"], "opencl:0");
  EXPECT_EQ(row["scheduler"], "model");  // the default with a device
  EXPECT_EQ(row["cpu_workers"], 0);
  EXPECT_EQ(row["tasks"], 91);  // 6 x 6 tiles, the last 20 wide
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["h2d_copies"], 36);  // every tile of A in once
  for (const char* key : {"d2h_copies", "total_bytes", "evictions", "links"})
    EXPECT_TRUE(row.contains(key)) << key;
}

TEST(CliQrDevices, BesideTheCpusWithARaggedTilePassesTheCheck) {
  SKIP_WITHOUT_QR_OR_OPENCL();
  // 5 tiles per side, the last 16 wide (narrower than ib). Double precision only, as above: each
  // precision is another OpenCL program to build, and the unit tests cover single.
  auto row =
      row_of("--n 400 --block 96 --ib 40 --devices cpu,opencl:0 --cpus 1 --sched eager --check");
  if (row.is_null()) GTEST_SKIP() << "no double precision";
  EXPECT_EQ(row["devices"], "cpu+opencl:0");
  EXPECT_EQ(row["cpu_workers"], 1);
  EXPECT_EQ(row["tasks"], 55);
  EXPECT_EQ(row["check"], "passed");
}

TEST(CliQrDevices, OutOfCoreThroughASmallDeviceMemory) {
  SKIP_WITHOUT_QR_OR_OPENCL();
  // A task holds at most four 64 x 64 tiles and a T tile (~150 KB); the matrix is 1.2 MB.
  auto row = row_of("--n 384 --block 64 --devices opencl:0 --device-memory 256KiB --check");
  if (row.is_null()) GTEST_SKIP() << "no double precision";
  EXPECT_EQ(row["check"], "passed");
  EXPECT_GT(row["evictions"].get<int>(), 0);
  EXPECT_EQ(row["device_memory_limit_bytes"], 256 * 1024);
}

TEST(CliQrDevices, SimulatedNodeRunsInVirtualTime) {
  if (!qr_available()) GTEST_SKIP() << "built without LAPACKE";
  // No kernel runs and no matrix is allocated: a large n takes well under a second.
  auto row = row_of("--n 8192 --block 512 --platform " + kPlatforms + "4xV100-pcie3.json");
  ASSERT_FALSE(row.is_null());
  EXPECT_EQ(row["simulated"], true);
  EXPECT_EQ(row["devices"], "cpu+4 sim GPUs");
  EXPECT_EQ(row["scheduler"], "model");
  EXPECT_EQ(row["check"], "not run");
  EXPECT_GT(row["time_s"].get<double>(), 0.0);
  EXPECT_GT(row["h2d_copies"].get<int>(), 0);  // tiles went to the simulated GPUs
  // A CPU-only node, its kernels run (the CPU implementations, on real memory), checked.
  row = row_of("--n 256 --block 64 --platform " + kPlatforms +
               "node-2x16core.json --sim-run-kernels --check");
  ASSERT_FALSE(row.is_null());
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["tasks"], 30);
}

TEST(CliQrDevices, BadDeviceInputIsOneLineAndExitTwo) {
  const std::string node = kPlatforms + "node-2x16core.json";
  const std::vector<std::string> cases = {"--devices cuda:9",
                                          "--devices opencl:0 --cpus 2",
                                          "--devices cpu --device-memory 8MiB",
                                          "--devices opencl:0 --device-memory 0",
                                          "--sim-run-kernels",
                                          "--platform " + node + " --devices opencl:0",
                                          "--platform " + node + " --check",
                                          "--platform " + node + " --grid 1x1"};
  for (const std::string& args : cases) {
    SCOPED_TRACE(args);
    CliResult r = run_cli("qr --n 64 " + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

}  // namespace
}  // namespace conveyor::test
