// run_pipeline_sweep with --strategy auto: with a calibration's staging model each row follows
// the model's choice (and says so); with `calibrate` it is timed and still carries the prediction;
// without a model it is timed. No timing is asserted: only which path decided and what it chose.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "conveyor/pipeline.hpp"
#include "stream/staging_model.hpp"

namespace conveyor::test {
namespace {

using stream::predict_staging;
using stream::StagingPrediction;
using stream::StagingQuery;

StagingCalibration model(int cpus) {
  StagingCalibration s;
  s.elements = std::size_t{1} << 24;
  s.cpus = cpus;
  for (auto [threads, gbs] : {std::pair{1, 10.0}, {2, 20.0}, {8, 40.0}})
    for (const char* k : {"copy", "scale", "add", "triad", "dot"})
      s.plain.push_back({threads, k, gbs});
  s.near_read_gbs = 100;
  s.movers.push_back({"thread", 8.0, 2.0, true, 1});
  return s;
}

PipelineSweepOptions small() {
  PipelineSweepOptions o;
  o.mover = "thread";
  o.threads = {1, 2};
  o.kernels = {StreamKernel::Triad, StreamKernel::Scale};
  o.elements = std::size_t{1} << 16;
  o.block_bytes = std::size_t{16} << 10;
  o.depth = 2;
  o.repeats = 1;
  o.overlap = false;
  return o;
}

std::string expected_choice(const PipelineSweepOptions& o, const PipelineRow& row) {
  StagingQuery q;
  q.mover = o.mover;
  q.threads = row.threads;
  q.kernel = row.kernel;
  q.elements = o.elements;
  q.block_bytes = o.block_bytes;
  StagingPrediction p = predict_staging(*o.staging_model, q);
  EXPECT_TRUE(p.usable) << p.why_not;
  return p.staging ? std::string(to_string(p.strategy)) : "none";
}

bool has_note(const PipelineSweep& sweep, const std::string& start) {
  return std::any_of(sweep.notes.begin(), sweep.notes.end(),
                     [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

TEST(PipelineAuto, RowsFollowTheModelWhenTheCalibrationHasOne) {
  for (int cpus : {2, 64}) {  // 2: no spare CPU for the copy thread at 2 threads
    PipelineSweepOptions o = small();
    o.staging_model = model(cpus);
    PipelineSweep sweep = run_pipeline_sweep(o);
    int piped = 0;
    for (const auto& row : sweep.rows) {
      if (row.pipeline == "none") continue;
      ++piped;
      EXPECT_TRUE(row.validated);
      EXPECT_EQ(row.decided_by, "model");
      EXPECT_EQ(row.strategy, expected_choice(o, row)) << row.threads << " threads";
      EXPECT_EQ(row.model_strategy, row.strategy);
      EXPECT_GT(row.predicted_plain_gbs, 0);
      EXPECT_EQ(row.timed_all_speedup, 0);  // nothing timed
    }
    EXPECT_EQ(piped, 4);
    EXPECT_TRUE(has_note(sweep, "auto, 1 thread, triad: ")) << sweep.notes.front();
    EXPECT_TRUE(has_note(sweep, "auto, 2 threads, scale: "));
  }
}

TEST(PipelineAuto, CalibrateTimesAndKeepsThePrediction) {
  PipelineSweepOptions o = small();
  o.threads = {1};
  o.staging_model = model(64);
  o.calibrate = true;
  PipelineSweep sweep = run_pipeline_sweep(o);
  for (const auto& row : sweep.rows) {
    if (row.pipeline == "none") continue;
    EXPECT_EQ(row.decided_by, "timing");
    EXPECT_EQ(row.model_strategy, expected_choice(o, row));
    EXPECT_GT(row.timed_all_speedup, 0);
    EXPECT_GT(row.timed_split_speedup, 0);
    EXPECT_TRUE(row.validated);
  }
  EXPECT_TRUE(has_note(sweep, "auto, 1 thread, triad: "));
}

TEST(PipelineAuto, WithoutAModelEveryRowIsTimed) {
  PipelineSweepOptions o = small();
  o.threads = {1};
  PipelineSweep sweep = run_pipeline_sweep(o);
  for (const auto& row : sweep.rows) {
    if (row.pipeline == "none") continue;
    EXPECT_EQ(row.decided_by, "timing");
    EXPECT_TRUE(row.model_strategy.empty());
  }
}

TEST(PipelineAuto, AMoverTheModelLacksIsTimedAndSaysWhyOnce) {
  PipelineSweepOptions o = small();
  o.mover = "prefetch";
  o.staging_model = model(64);
  PipelineSweep sweep = run_pipeline_sweep(o);
  for (const auto& row : sweep.rows)
    if (row.pipeline != "none") EXPECT_EQ(row.decided_by, "timing");
  EXPECT_EQ(
      std::count_if(sweep.notes.begin(), sweep.notes.end(),
                    [](const std::string& n) { return n.find("prefetch") != std::string::npos; }),
      1);
}

TEST(PipelineAuto, ExplicitStrategiesIgnoreTheModel) {
  PipelineSweepOptions o = small();
  o.threads = {1};
  o.strategy = PipelineStrategy::All;
  o.staging_model = model(64);
  PipelineSweep sweep = run_pipeline_sweep(o);
  for (const auto& row : sweep.rows) {
    if (row.pipeline == "none") continue;
    EXPECT_EQ(row.strategy, "all");
    EXPECT_TRUE(row.decided_by.empty());
  }
}

}  // namespace
}  // namespace conveyor::test
