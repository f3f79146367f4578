// The staged pipeline's model: with synthetic calibrations it picks all, split or no staging
// where the arithmetic says it should; it refuses cases the calibration did not measure; and
// load_staging_model says in one line why auto falls back to timing.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "scratch_dir.hpp"
#include "stream/staging_model.hpp"

namespace conveyor::test {
namespace {

using stream::plain_rate_gbs;
using stream::predict_staging;
using stream::StagingPrediction;
using stream::StagingQuery;

// Plain kernels: 10 GB/s at 1 thread, 20 at 2, 35 at 4, 40 at 8 (the memory's limit); reading the
// ring 100 GB/s per thread; a copy thread at 8 GB/s and a DSA-like engine at 30 GB/s.
StagingCalibration synthetic(int cpus) {
  StagingCalibration s;
  s.elements = std::size_t{1} << 26;
  s.cpus = cpus;
  for (auto [threads, gbs] : {std::pair{1, 10.0}, {2, 20.0}, {4, 35.0}, {8, 40.0}})
    for (const char* k : {"copy", "scale", "add", "triad", "dot"})
      s.plain.push_back({threads, k, gbs});
  s.near_read_gbs = 100;
  s.movers.push_back({"thread", 8.0, 2.0, true, 1});
  s.movers.push_back({"dsa", 30.0, 1.0, false, 1});
  return s;
}

StagingQuery query(const std::string& mover, int threads, StreamKernel k = StreamKernel::Triad) {
  StagingQuery q;
  q.mover = mover;
  q.threads = threads;
  q.kernel = k;
  q.elements = std::size_t{1} << 26;
  q.block_bytes = std::size_t{1} << 20;
  return q;
}

TEST(StagingModel, FastEngineAtOneThreadStagesEverything) {
  // Cores: 8 B written at 10 GB/s + 16 B from the ring at 100 GB/s = 0.96 ns per element, the
  // engine 16 B at 30 GB/s = 0.53 ns: about 25 GB/s against the plain 10.
  StagingPrediction p = predict_staging(synthetic(64), query("dsa", 1));
  ASSERT_TRUE(p.usable) << p.why_not;
  EXPECT_DOUBLE_EQ(p.plain_gbs, 10.0);
  EXPECT_NEAR(p.all_gbs, 25.0, 0.5);
  EXPECT_NEAR(p.split_gbs, 14.3, 0.3);
  EXPECT_TRUE(p.staging);
  EXPECT_EQ(p.strategy, PipelineStrategy::All);
}

TEST(StagingModel, SlowMoverSplitsTheInputs) {
  // Staging both inputs makes the 8 GB/s copy thread the bottleneck (2 ns per element); staging
  // one leaves the core its own input: max(1.68, 1.0) ns, about 14 GB/s.
  StagingPrediction p = predict_staging(synthetic(64), query("thread", 1));
  ASSERT_TRUE(p.usable) << p.why_not;
  EXPECT_NEAR(p.all_gbs, 12.0, 0.3);
  EXPECT_NEAR(p.split_gbs, 14.3, 0.3);
  EXPECT_TRUE(p.staging);
  EXPECT_EQ(p.strategy, PipelineStrategy::Split);
}

TEST(StagingModel, CopyThreadWithoutACpuOfItsOwnKeepsThePlainKernel) {
  // Same mover, 2 computing threads: with CPUs to spare split wins (24 against 20 GB/s); on a
  // 2-CPU machine the copy thread takes its time from the computing threads and neither wins.
  StagingPrediction spare = predict_staging(synthetic(64), query("thread", 2));
  ASSERT_TRUE(spare.usable);
  EXPECT_TRUE(spare.staging);
  EXPECT_EQ(spare.strategy, PipelineStrategy::Split);
  StagingPrediction crowded = predict_staging(synthetic(2), query("thread", 2));
  ASSERT_TRUE(crowded.usable);
  EXPECT_FALSE(crowded.staging);
  EXPECT_LT(crowded.split_gbs, crowded.plain_gbs);
  EXPECT_LT(crowded.all_gbs, crowded.plain_gbs);
  // An engine needs no CPU: it still helps on the crowded machine.
  EXPECT_TRUE(predict_staging(synthetic(2), query("dsa", 2)).staging);
}

TEST(StagingModel, MemoryBoundThreadCountsKeepThePlainKernel) {
  // 8 threads already reach the memory's 40 GB/s: staging moves the same bytes, it cannot win.
  for (const char* mover : {"thread", "dsa"}) {
    StagingPrediction p = predict_staging(synthetic(64), query(mover, 8));
    ASSERT_TRUE(p.usable);
    EXPECT_FALSE(p.staging) << mover;
    EXPECT_LE(p.all_gbs, 40.0 + 1e-9);
    EXPECT_LE(p.split_gbs, 40.0 + 1e-9);
  }
}

TEST(StagingModel, EveryKernelGetsAFinitePrediction) {
  for (StreamKernel k : kStreamKernels)
    for (int threads : {1, 3, 8, 16}) {
      StagingPrediction p = predict_staging(synthetic(64), query("dsa", threads, k));
      ASSERT_TRUE(p.usable);
      EXPECT_GT(p.all_gbs, 0);
      EXPECT_GT(p.split_gbs, 0);
      EXPECT_LE(p.all_gbs, 40.0 + 1e-9) << traits(k).name << " " << threads;
    }
}

TEST(StagingModel, PlainRateIsInterpolatedBetweenMeasuredThreadCounts) {
  StagingCalibration s = synthetic(64);
  EXPECT_DOUBLE_EQ(*plain_rate_gbs(s, StreamKernel::Dot, 3), 27.5);
  EXPECT_DOUBLE_EQ(*plain_rate_gbs(s, StreamKernel::Dot, 6), 37.5);
  EXPECT_DOUBLE_EQ(*plain_rate_gbs(s, StreamKernel::Dot, 32), 40.0);
  // A load spike during the probe (2 threads slower than 1) is not taken for the machine.
  for (auto& p : s.plain)
    if (p.threads == 2) p.best_gbs = 2.0;
  EXPECT_DOUBLE_EQ(*plain_rate_gbs(s, StreamKernel::Dot, 2), 10.0);
  s.plain.clear();
  EXPECT_FALSE(plain_rate_gbs(s, StreamKernel::Dot, 1));
}

TEST(StagingModel, CasesTheCalibrationDidNotMeasureAreRefused) {
  StagingPrediction p = predict_staging(synthetic(64), query("prefetch", 1));
  EXPECT_FALSE(p.usable);
  EXPECT_NE(p.why_not.find("prefetch"), std::string::npos) << p.why_not;
  StagingQuery standard = query("thread", 1);
  standard.variant = StreamVariant::Standard;
  p = predict_staging(synthetic(64), standard);
  EXPECT_FALSE(p.usable);
  EXPECT_NE(p.why_not.find("standard"), std::string::npos) << p.why_not;
  StagingQuery compact = query("thread", 1);
  compact.binding = ThreadBinding::Compact;
  EXPECT_FALSE(predict_staging(synthetic(64), compact).usable);
}

class StagingModelFile : public ::testing::Test {
 protected:
  std::filesystem::path path() const { return dir_.dir() / "calibration.json"; }
  Calibration calibration(bool with_staging) const {
    Calibration cal;
    cal.date = "2026-11-23T08:00:00Z";
    cal.machine = current_machine();
    CalibrationEntry cpu;
    cpu.device = "cpu";
    cal.entries.push_back(cpu);
    if (with_staging) cal.staging = synthetic(64);
    return cal;
  }

 private:
  ScratchDir dir_;
};

TEST_F(StagingModelFile, ACalibrationWithStagingGivesTheModel) {
  calibration(true).save(path());
  StagingModelSource s = load_staging_model(path(), false);
  ASSERT_TRUE(s.staging);
  EXPECT_TRUE(s.note.empty());
  EXPECT_NE(s.origin.find("2026-11-23T08:00:00Z"), std::string::npos) << s.origin;
  EXPECT_EQ(s.staging->movers.size(), 2u);
}

TEST_F(StagingModelFile, AnOldCalibrationFallsBackToTimingInOneLine) {
  auto doc = calibration(false).to_json();
  doc["conveyor_calibration"] = 1;  // written before the staging section existed
  std::ofstream(path()) << doc.dump();
  StagingModelSource s = load_staging_model(path(), false);
  EXPECT_FALSE(s.staging);
  EXPECT_NE(s.note.find("no staging measurements"), std::string::npos) << s.note;
  EXPECT_NE(s.note.find("times each"), std::string::npos) << s.note;
  EXPECT_EQ(s.note.find('\n'), std::string::npos);
}

TEST_F(StagingModelFile, MissingOrCorruptDefaultFilesFallBackButNamedOnesAreErrors) {
  StagingModelSource missing = load_staging_model(path(), false);
  EXPECT_FALSE(missing.staging);
  EXPECT_NE(missing.note.find("no calibration at"), std::string::npos) << missing.note;
  EXPECT_THROW(load_staging_model(path(), true), UsageError);

  std::ofstream(path()) << "{\"conveyor_calibration\": 2, \"date\": ";
  StagingModelSource corrupt = load_staging_model(path(), false);
  EXPECT_FALSE(corrupt.staging);
  EXPECT_NE(corrupt.note.find("not valid JSON"), std::string::npos) << corrupt.note;
  EXPECT_EQ(corrupt.note.find('\n'), std::string::npos);
  EXPECT_THROW(load_staging_model(path(), true), UsageError);

  auto doc = calibration(true).to_json();
  doc["staging"]["movers"][0].erase("copy_gbs");
  std::ofstream(path()) << doc.dump();
  StagingModelSource malformed = load_staging_model(path(), false);
  EXPECT_FALSE(malformed.staging);
  EXPECT_NE(malformed.note.find("copy_gbs"), std::string::npos) << malformed.note;
}

}  // namespace
}  // namespace conveyor::test
