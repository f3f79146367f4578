// conveyor cholesky on simulated platforms (docs/simulation.md): the seed's table 5 for 1, 2 and 4
// simulated V100s in seconds, a checked run that executes the kernels, and bad platform input as
// one line with exit 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

const std::string kV100 = std::string(CONVEYOR_SOURCE_DIR) + "/platforms/4xV100-pcie3.json";

TEST(CliSimulation, SeedTable5For1To4SimulatedV100s) {
  CliResult r = run_cli("cholesky --n 32768 --block 1024 --platform " + kV100 +
                        " --offload gemm --sched round-robin --device-copy peer-copy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"seed 003 table 5 layout", "1 GPU", "2 GPU", "4 GPU", "Host to Device",
                        "Device to Device", "960 [960]", "465 [465]", "simulated time s"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(CliSimulation, JsonRowsPerGpuCountAndDeviceCopy) {
  CliResult r = run_cli("cholesky --n 8192 --block 512 --platform " + kV100 +
                        " --sched round-robin --device-copy peer-copy,peer-direct --gpus 1,2 "
                        "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 4u);
  for (const auto& row : doc["results"]) {
    EXPECT_TRUE(row["simulated"].get<bool>());
    EXPECT_GT(row["time_s"].get<double>(), 0.0);
    EXPECT_EQ(row["tasks"], 816);       // 16 tiles
    EXPECT_EQ(row["d2h_copies"], 105);  // 15 * 14 / 2 tiles gemm writes, back once each
  }
  EXPECT_EQ(doc["results"][3]["device_copy"], "peer-direct");
  EXPECT_EQ(doc["results"][3]["d2d_copies"], 0);  // in place, not copied
}

TEST(CliSimulation, RunsTheKernelsAndChecksWhenAsked) {
  CliResult r = run_cli("cholesky --n 256 --block 64 --platform " + kV100 +
                        " --gpus 2 --sched round-robin --device-copy peer-direct "
                        "--sim-run-kernels --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
}

TEST(CliSimulation, BadPlatformInputIsOneLineAndExit2) {
  auto path = std::filesystem::temp_directory_path() / "conveyor_bad_platform.json";
  std::ofstream(path) << R"({"name": "bad", "host": {"cores": 2}, "devices": [{"id": "g",
      "memory_gb": 1}], "links": [{"between": ["host", "g:0"], "gbs": -1}]})";
  CliResult r = run_cli("cholesky --n 1024 --block 256 --platform " + path.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'links[0].gbs' must not be negative"), std::string::npos) << r.err;
  std::filesystem::remove(path);
  for (const char* args :
       {"cholesky --n 1024 --gpus 2", "cholesky --n 1024 --platform /nonexistent.json",
        "cholesky --n 1024 --device-copy sideways"}) {
    CliResult bad = run_cli(args);
    EXPECT_EQ(bad.exit_code, 2) << args;
    EXPECT_EQ(line_count(bad.err), 1) << args << ": " << bad.err;
  }
}

}  // namespace
}  // namespace conveyor::test
