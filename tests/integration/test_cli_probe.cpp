// conveyor probe as a user runs it: short sweeps only (--quick, small --max-size); no timing
// checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

// The keys `conveyor plot` reads for each row kind (docs/plot.md, "probe").
const std::map<std::string, std::vector<std::string>> kKeys = {
    {"bandwidth", {"device", "model", "direction", "bytes", "best_gbs", "median_gbs"}},
    {"dispatch", {"device", "enqueue_us", "roundtrip_us"}},
    {"attach", {"device", "model", "bytes", "time_us"}},
    {"model",
     {"device", "model", "td_us", "tm_us", "bw_gbs", "fit_intercept_us", "fit_slope_us_per_byte",
      "rms_residual_us"}},
    {"app", {"app", "device", "size", "time_s", "speedup_vs_cpu"}},
    {"crossover", {"app", "device", "size"}},
};

void expect_schema(const nlohmann::json& doc, const std::set<std::string>& kinds_expected) {
  EXPECT_EQ(doc["command"], "probe");
  std::set<std::string> kinds;
  for (const auto& row : doc["results"]) {
    std::string kind = row.at("kind");
    kinds.insert(kind);
    ASSERT_TRUE(kKeys.count(kind)) << kind;
    for (const auto& key : kKeys.at(kind)) EXPECT_TRUE(row.contains(key)) << kind << " " << key;
  }
  EXPECT_EQ(kinds, kinds_expected);
}

TEST(CliProbe, CpuQuickPrintsTable3) {
  CliResult r = run_cli("probe --quick --device cpu --no-calibration");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"table 3", "Td (us)", "Tm (us)", "BW (GB/s)", "cpu host", "cpu host d2d",
                           "cpu host task", "Matrix product", "MD5"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST(CliProbe, CpuQuickJsonHasEveryRowKindAndTheCalibration) {
  ScratchDir scratch;
  std::string calibration = scratch.path("cal/calibration.json");
  std::string out = scratch.path("probe.json");
  CliResult r = run_cli("probe --quick --device cpu --json --repeats 2 --calibration " +
                        calibration + " --json-out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  // The CPU alone: it is the crossover's reference, so there is no crossover row.
  expect_schema(doc, {"bandwidth", "dispatch", "attach", "model", "app"});
  EXPECT_EQ(doc["calibration"], calibration);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(out)), doc);

  CliResult shown = run_cli("probe --show-calibration --calibration " + calibration);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("cpu"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Td us"), std::string::npos) << shown.out;
  CliResult json = run_cli("probe --show-calibration --json --calibration " + calibration);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["entries"][0]["device"], "cpu");
}

TEST(CliProbe, OpenCLQuickComparesWithTheCpu) {
  CliResult r = run_cli(
      "probe --device opencl:0 --quick --repeats 2 --max-size 256K --json "
      "--no-calibration");
  if (r.exit_code == 2 && r.err.find("opencl:0") != std::string::npos)
    GTEST_SKIP() << "no OpenCL device: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  expect_schema(doc, {"bandwidth", "dispatch", "attach", "model", "app", "crossover"});
  std::set<std::string> models;
  for (const auto& row : doc["results"]) {
    if (row["kind"] == "model") models.insert(row["model"].get<std::string>());
    if (row["kind"] == "app" && row["device"] == "opencl:0") {
      EXPECT_TRUE(row["valid"].get<bool>()) << row.dump();
      EXPECT_TRUE(row.contains(row["app"] == "matmul" ? "rel_error" : "mismatches"));
    }
  }
  for (const char* m : {"pageable", "pinned", "mapped"}) EXPECT_TRUE(models.count(m)) << m;
}

TEST(CliProbe, UnknownDeviceIsOneLineExitTwo) {
  CliResult r = run_cli("probe --device tpu:3 --no-calibration");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("tpu:3"), std::string::npos) << r.err;
}

TEST(CliProbe, BadOptionsExitTwo) {
  for (const char* args : {"--max-size 12Q", "--max-size 100", "--repeats 0", "--device ,"}) {
    CliResult r = run_cli(std::string("probe --quick --no-calibration ") + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(line_count(r.err), 1) << args << ": " << r.err;
  }
}

TEST(CliProbe, UnwritableCalibrationIsOneLineExitOneBeforeMeasuring) {
  ScratchDir scratch;
  std::string file = scratch.path("a_file");
  std::ofstream(file) << "x";
  CliResult r = run_cli("probe --quick --device cpu --calibration " + file + "/calibration.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot write calibration"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliProbe, ShowingAMissingOrCorruptCalibrationExitsTwo) {
  ScratchDir scratch;
  std::string missing = scratch.path("missing.json");
  CliResult r = run_cli("probe --show-calibration --calibration " + missing);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no calibration"), std::string::npos) << r.err;
  std::string corrupt = scratch.path("corrupt.json");
  std::ofstream(corrupt) << "{\"conveyor_calibration\": 1,";
  r = run_cli("probe --show-calibration --calibration " + corrupt);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

TEST(CliProbe, HelpTeachesWithExamples) {
  CliResult r = run_cli("probe --help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* text : {"Examples:", "--calibration", "--no-apps", "--show-calibration", "Td"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

}  // namespace
}  // namespace conveyor::test
