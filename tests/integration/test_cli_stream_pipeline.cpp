// conveyor stream --pipeline: the figure-5 table and JSON rows that `conveyor plot` draws; bad
// options exit 2 with one line; a mover failure exits 1 and says the destination is complete.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "conveyor/calibration.hpp"
#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

const std::string kSmall = "stream --elements 256K --block 64KiB --depth 2 --repeats 2 ";

// A calibration of this machine whose staging model makes split win at 1 thread: one core
// streams 10 GB/s of the memory's 40, a copy thread copies 8 GB/s (both inputs would make it the
// bottleneck), and the machine is said to have CPUs to spare.
Calibration staged_calibration() {
  Calibration cal;
  cal.date = "2026-11-23T08:00:00Z";
  cal.machine = current_machine();
  CalibrationEntry cpu;
  cpu.device = "cpu";
  cal.entries.push_back(cpu);
  StagingCalibration s;
  s.elements = std::size_t{1} << 24;
  s.cpus = 64;
  for (auto [threads, gbs] : {std::pair{1, 10.0}, {2, 20.0}, {4, 35.0}, {8, 40.0}})
    for (const char* k : {"copy", "scale", "add", "triad", "dot"})
      s.plain.push_back({threads, k, gbs});
  s.near_read_gbs = 100;
  s.movers.push_back({"thread", 8.0, 2.0, true, 1});
  cal.staging = s;
  return cal;
}

/// Points XDG_CACHE_HOME (where the calibration is looked for) at a folder for one scope.
class CacheHome {
 public:
  explicit CacheHome(const std::string& dir) {
    if (const char* old = std::getenv("XDG_CACHE_HOME")) old_ = old;
    ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~CacheHome() {
    if (old_)
      ::setenv("XDG_CACHE_HOME", old_->c_str(), 1);
    else
      ::unsetenv("XDG_CACHE_HOME");
  }

 private:
  std::optional<std::string> old_;
};

int lines_containing(const std::string& text, const std::string& what) {
  int n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    n += text.substr(start, end - start).find(what) != std::string::npos;
    start = end + 1;
  }
  return n;
}

TEST(CliStreamPipeline, JsonRowsPairCpuOnlyWithPipelined) {
  for (const char* mover : {"thread", "prefetch"}) {
    CliResult r =
        run_cli(kSmall + "--pipeline " + mover + " --threads 1-2 --kernels triad,dot --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["command"], "stream");
    ASSERT_EQ(doc["results"].size(), 8u);  // 2 thread counts x 2 kernels x (CPU-only, pipelined)
    for (const auto& row : doc["results"]) {
      EXPECT_TRUE(row["validated"].get<bool>());
      EXPECT_GT(row["best_gbs"].get<double>(), 0);
      EXPECT_TRUE(row.contains("speedup"));
      if (row["pipeline"] == "none") {
        EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0);
      } else {
        EXPECT_EQ(row["pipeline"], mover);
        std::string s = row["strategy"];
        EXPECT_TRUE(s == "all" || s == "split" || s == "none") << s;
      }
    }
  }
}

TEST(CliStreamPipeline, TableShowsOverlapForAStagingMover) {
  CliResult r = run_cli(kSmall + "--pipeline thread --strategy all --threads 1 --kernels scale");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CPU-only GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("overlap"), std::string::npos);
  EXPECT_NE(r.out.find(" all "), std::string::npos) << r.out;
}

TEST(CliStreamPipeline, OpenClDeviceStream) {
  CliResult probe = run_cli("devices --json");
  if (probe.out.find("\"opencl:0\"") == std::string::npos) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli(kSmall + "--pipeline opencl --threads 1 --kernels add --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][1]["device"], "opencl:0");
  EXPECT_TRUE(doc["results"][1]["validated"].get<bool>());
}

TEST(CliStreamPipeline, BadOptionsExit2WithOneLine) {
  for (const std::string args :
       {"--pipeline teleport", "--pipeline thread --strategy some", "--pipeline thread --depth 0",
        "--pipeline thread --block 100", "--pipeline opencl:77", "--pipeline cpu",
        "--pipeline thread --device cpu", "--pipeline thread --strategy all --calibrate",
        "--pipeline thread --strategy split --calibration x.json",
        "--pipeline thread --calibration /nonexistent/calibration.json"}) {
    CliResult r = run_cli(kSmall + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << args << ": " << r.err;
  }
}

TEST(CliStreamPipeline, NoDsaIsExplained) {
  CliResult r = run_cli(kSmall + "--pipeline dsa --threads 1");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a DSA work queue";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no DSA work queue found"), std::string::npos) << r.err;
}

TEST(CliStreamPipeline, CopyFailureExits1AndSaysTheDestinationIsComplete) {
  CliResult r =
      run_cli(kSmall + "--pipeline thread --strategy all --threads 1 --inject-copy-failure 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("destination is complete"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test

namespace conveyor::test {
namespace {

TEST(CliStreamPipelineAuto, PredictsFromTheCalibrationInTheCacheFolder) {
  ScratchDir dir;
  staged_calibration().save(dir.dir() / "conveyor" / "calibration.json");
  CacheHome home(dir.dir().string());
  CliResult r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels triad --no-overlap");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted from the model of calibration"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("auto, 1 thread, triad: split (model: predicted plain 10.00"),
            std::string::npos)
      << r.out;

  r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels triad --no-overlap --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  const auto& row = doc["results"][1];
  EXPECT_EQ(row["decided_by"], "model");
  EXPECT_EQ(row["strategy"], "split");
  EXPECT_EQ(row["model_strategy"], "split");
  EXPECT_DOUBLE_EQ(row["predicted_plain_gbs"].get<double>(), 10.0);
  EXPECT_GT(row["predicted_split_gbs"].get<double>(), row["predicted_all_gbs"].get<double>());
  EXPECT_FALSE(row.contains("timed_all_speedup"));
}

TEST(CliStreamPipelineAuto, CalibrateTimesAndStillShowsThePrediction) {
  ScratchDir dir;
  const std::string file = dir.path("mine.json");
  staged_calibration().save(file);
  CliResult r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels triad --no-overlap " +
                        "--calibrate --calibration " + file + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& row = doc["results"][1];
  EXPECT_EQ(row["decided_by"], "timing");
  EXPECT_EQ(row["model_strategy"], "split");
  EXPECT_GT(row["timed_all_speedup"].get<double>(), 0);
  bool compared = false;
  for (const auto& note : doc["notes"])
    compared = compared ||
               note.get<std::string>().find("the model would choose split") != std::string::npos;
  EXPECT_TRUE(compared) << doc["notes"].dump();
}

TEST(CliStreamPipelineAuto, AnOldCalibrationFallsBackToTimingInOneLine) {
  ScratchDir dir;
  auto doc = staged_calibration().to_json();
  doc.erase("staging");
  doc["conveyor_calibration"] = 1;
  std::filesystem::create_directories(dir.dir() / "conveyor");
  std::ofstream(dir.dir() / "conveyor" / "calibration.json") << doc.dump();
  CacheHome home(dir.dir().string());
  CliResult r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels scale --no-overlap");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_containing(r.out, "has no staging measurements"), 1) << r.out;
  EXPECT_NE(r.out.find("auto, 1 thread, scale: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(timed all"), std::string::npos) << r.out;
}

TEST(CliStreamPipelineAuto, ACorruptCalibrationIsOneClearLine) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.dir() / "conveyor");
  std::ofstream(dir.dir() / "conveyor" / "calibration.json") << "{\"conveyor_calibration\": 2,";
  {
    CacheHome home(dir.dir().string());  // the default file: auto times itself, and says why
    CliResult r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels dot --no-overlap");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_containing(r.out, "not valid JSON"), 1) << r.out;
  }
  // A file the user named: exit 2, one line.
  CliResult r = run_cli(kSmall + "--pipeline thread --threads 1 --kernels dot --calibration " +
                        (dir.dir() / "conveyor" / "calibration.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

TEST(CliStreamPipelineAuto, HelpTeachesHowToForceTiming) {
  CliResult r = run_cli("stream --help");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--calibrate"), std::string::npos);
  EXPECT_NE(r.out.find("--calibration"), std::string::npos);
  EXPECT_NE(r.out.find("conveyor probe"), std::string::npos);
}

}  // namespace
}  // namespace conveyor::test
