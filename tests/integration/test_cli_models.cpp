// conveyor models: a Cholesky run with the model scheduler writes its models to the file given, and
// `conveyor models` lists them (table and JSON); a corrupt file is one line and exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

// One private directory per test process, removed at exit.
std::string temp_path(const std::string& name) {
  static ScratchDir dir;
  return dir.path(name);
}

TEST(CliModels, CholeskyWithTheModelSchedulerFillsTheModels) {
  std::string file = temp_path("m.json");
  std::filesystem::remove(file);
  CliResult r = run_cli("cholesky --n 256 --block 64 --cpus 2 --sched model --models " + file +
                        " --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["scheduler"], "model");
  EXPECT_EQ(row["check"], "passed");
  ASSERT_FALSE(row["workers"].empty());
  EXPECT_TRUE(row["workers"][0].contains("predicted_busy_s"));

  r = run_cli("models --file " + file + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "models");
  std::set<std::string> codelets;
  for (const auto& m : doc["results"]) {
    codelets.insert(m["codelet"].get<std::string>());
    EXPECT_EQ(m["device"], "cpu");
    EXPECT_GT(m["samples"].get<int>(), 0);
    EXPECT_GE(m["median_s"].get<double>(), 0.0);
  }
  EXPECT_EQ(codelets, (std::set<std::string>{"potrf", "trsm", "syrk", "gemm"}));

  std::string json = temp_path("models.json"), png = temp_path("models.png");
  r = run_cli("models --file " + file + " --json-out " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("prediction error"), std::string::npos) << r.out;
  r = run_cli("plot " + json + " -o " + png);  // time vs size per device
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(std::filesystem::file_size(png), 1000u);
  for (const auto& f : {file, json, png}) std::filesystem::remove(f);
}

TEST(CliModels, CorruptOrMissingFileIsOneLineAndExitTwo) {
  std::string file = temp_path("corrupt.json");
  std::ofstream(file) << "{ not json";
  for (const std::string& args : {"models --file " + file, "models --file " + temp_path("none")}) {
    SCOPED_TRACE(args);
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  CliResult r = run_cli("cholesky --n 64 --calibrate");  // no model scheduler without a device
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace conveyor::test
