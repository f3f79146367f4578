#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

TEST(CliStream, ThreadSweepTableHasOneRowPerThreadCount) {
  CliResult r = run_cli("stream --threads 1-2 --allow-small --elements 1M --repeats 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("threads"), std::string::npos) << r.out;
  for (const char* kernel : {"copy", "scale", "add", "triad", "dot"})
    EXPECT_NE(r.out.find(kernel), std::string::npos) << kernel;
  EXPECT_NE(r.out.find("\n1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GB/s = 1e9 B/s"), std::string::npos);
  EXPECT_NE(r.out.find("no write-allocate"), std::string::npos);
  EXPECT_NE(r.out.find("note: 1048576 elements per array"), std::string::npos) << r.out;
}

TEST(CliStream, SingleThreadCountTableHasOneRowPerKernel) {
  CliResult r = run_cli(
      "stream --threads 1 --allow-small --elements 64K --repeats 2 --kernels triad,copy "
      "--variant both");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("best GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tuned"), std::string::npos) << r.out;
  // One row per kernel and variant: 2 x 2, each starting with the device and naming the variant.
  int rows = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    rows += line.rfind("cpu ", 0) == 0 && (line.find(" standard ") != std::string::npos ||
                                           line.find(" tuned ") != std::string::npos);
  EXPECT_EQ(rows, 4) << r.out;
}

TEST(CliStream, JsonFollowsThePlotSchema) {
  CliResult r = run_cli(
      "stream --threads 1-2 --allow-small --elements 100000 --repeats 3 --variant tuned --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "stream");
  ASSERT_EQ(doc["results"].size(), 10u);
  for (const auto& row : doc["results"]) {
    for (const char* key : {"device", "variant", "threads", "binding", "kernel", "elements",
                            "bytes_per_iteration", "best_gbs", "median_gbs", "worst_gbs", "best_s",
                            "percent_of_peak", "validated", "numa_nodes", "huge_pages", "tier"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row["variant"], "tuned");
    EXPECT_EQ(row["elements"], 100000);
    EXPECT_TRUE(row["validated"].get<bool>());
  }
  bool small_note = false;
  for (const auto& note : doc["notes"])
    small_note = small_note || note.get<std::string>().find("--allow-small") != std::string::npos;
  EXPECT_TRUE(small_note) << doc["notes"].dump();
}

TEST(CliStream, SmallArraysAreRefusedWithoutAllowSmall) {
  CliResult r = run_cli("stream --elements 1000 --repeats 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("STREAM size rule"), std::string::npos) << r.err;
}

TEST(CliStream, OpenCLDeviceRunsWhenPresent) {
  CliResult probe = run_cli("devices --json");
  ASSERT_EQ(probe.exit_code, 0);
  if (probe.out.find("\"opencl:0\"") == std::string::npos) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli("stream --device opencl:0 --allow-small --elements 64K --repeats 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 5u);
  EXPECT_EQ(doc["results"][0]["device"], "opencl:0");
}

TEST(CliStream, TierHbmWithoutHbmIsAUsageError) {
  CliResult devices = run_cli("devices --json");
  ASSERT_EQ(devices.exit_code, 0);
  for (const auto& node : nlohmann::json::parse(devices.out)["numa_nodes"])
    if (node["high_bandwidth"].get<bool>()) GTEST_SKIP() << "this machine has an HBM tier";
  CliResult r = run_cli("stream --tier hbm --allow-small --elements 4K --repeats 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--tier hbm"), std::string::npos) << r.err;
}

class CliStreamBadInput : public ::testing::TestWithParam<const char*> {};

TEST_P(CliStreamBadInput, IsOneLineAndExitTwo) {
  CliResult r = run_cli(std::string("stream --allow-small --repeats 2 ") + GetParam());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Cases, CliStreamBadInput,
                         ::testing::Values("--elements -5", "--elements 1T", "--elements 0",
                                           "--device cuda:7", "--kernels foo",
                                           "--kernels copy,,dot", "--threads 0", "--threads 100000",
                                           "--tier l3", "--numa 4095", "--numa -1", "--bind spread",
                                           "--variant fast", "--repeats 1", "--repeats 1000",
                                           "--size 4", "--elements 1M --size 8M"));

}  // namespace
}  // namespace conveyor::test
