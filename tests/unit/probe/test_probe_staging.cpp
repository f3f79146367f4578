// The probe's staging measurements: the mover fit (pure arithmetic), a short run on the CPU that
// fills every field, and the calibration file keeping them (schema 2) or lacking them (schema 1).
#include <gtest/gtest.h>

#include <fstream>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "probe/plan.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

TEST(MoverFit, SeparatesPerBlockCostFromBandwidth) {
  // 64 MiB at 8 GB/s is 8.39 ms; 1024 blocks of 64 KiB at 2 us each add 2.05 ms, 64 blocks of
  // 1 MiB add 0.13 ms.
  const std::uint64_t total = std::uint64_t{64} << 20;
  const double copy_s = total / 8e9;
  probe::MoverFit fit =
      probe::fit_mover(total, 64 << 10, copy_s + 1024 * 2e-6, 1 << 20, copy_s + 64 * 2e-6);
  EXPECT_NEAR(fit.copy_gbs, 8.0, 1e-9);
  EXPECT_NEAR(fit.block_overhead_us, 2.0, 1e-9);
  // The order of the two runs does not matter.
  probe::MoverFit swapped =
      probe::fit_mover(total, 1 << 20, copy_s + 64 * 2e-6, 64 << 10, copy_s + 1024 * 2e-6);
  EXPECT_NEAR(swapped.copy_gbs, 8.0, 1e-9);
}

TEST(MoverFit, NoiseThatMakesSmallBlocksFasterGivesNoOverhead) {
  probe::MoverFit fit = probe::fit_mover(1 << 20, 4096, 0.9e-3, 1 << 18, 1.0e-3);
  EXPECT_EQ(fit.block_overhead_us, 0);
  EXPECT_NEAR(fit.copy_gbs, (1 << 20) / 1.0e-3 / 1e9, 1e-9);
  EXPECT_THROW(probe::fit_mover(0, 4096, 1, 8192, 1), Error);
}

TEST(ProbeStaging, ThreadCountsArePowersOfTwoThenTheCores) {
  EXPECT_EQ(probe::staging_thread_counts(1), (std::vector<int>{1}));
  EXPECT_EQ(probe::staging_thread_counts(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(probe::staging_thread_counts(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(probe::staging_thread_counts(8), (std::vector<int>{1, 2, 4, 8}));
}

TEST(ProbeStaging, ShortRunFillsEveryField) {
  probe::StagingPlan plan;
  plan.elements = std::size_t{1} << 18;
  plan.threads = {1};
  plan.mover_blocks = {std::size_t{16} << 10, std::size_t{64} << 10};
  plan.repeats = 1;
  plan.budget_s = 0.05;
  StagingCalibration s = probe::probe_staging(plan, {});
  EXPECT_EQ(s.variant, "tuned");
  EXPECT_EQ(s.binding, "scatter");
  EXPECT_EQ(s.elements, plan.elements);
  EXPECT_GT(s.cpus, 0);
  ASSERT_EQ(s.plain.size(), 5u);  // every kernel at the one thread count
  for (const auto& p : s.plain) {
    EXPECT_EQ(p.threads, 1);
    EXPECT_GT(p.best_gbs, 0) << p.kernel;
  }
  EXPECT_GT(s.near_read_gbs, 0);
  const MoverCalibration* thread = s.find_mover("thread");
  ASSERT_NE(thread, nullptr);
  EXPECT_GT(thread->copy_gbs, 0);
  EXPECT_GE(thread->block_overhead_us, 0);
  EXPECT_TRUE(thread->uses_cpu);
  EXPECT_EQ(s.find_mover("prefetch"), nullptr);  // it stages nothing: no copy rate
}

TEST(ProbeStaging, CalibrationKeepsTheSectionAndReadsSchemaOneWithout) {
  ScratchDir dir;
  const std::filesystem::path path = dir.dir() / "calibration.json";
  Calibration cal;
  cal.date = "2026-11-23T08:00:00Z";
  cal.machine = current_machine();
  StagingCalibration s;
  s.elements = 1 << 22;
  s.cpus = 2;
  s.plain = {{1, "triad", 21.7}, {2, "triad", 25.0}};
  s.near_read_gbs = 60;
  s.movers = {{"thread", 9.5, 1.5, true, 1}};
  cal.staging = s;
  cal.save(path);
  Calibration back = Calibration::load(path);
  EXPECT_EQ(back.schema, kCalibrationSchema);
  ASSERT_TRUE(back.staging);
  EXPECT_EQ(back.staging->plain.size(), 2u);
  EXPECT_DOUBLE_EQ(back.staging->plain[1].best_gbs, 25.0);
  EXPECT_DOUBLE_EQ(back.staging->near_read_gbs, 60);
  ASSERT_NE(back.staging->find_mover("thread"), nullptr);
  EXPECT_DOUBLE_EQ(back.staging->find_mover("thread")->block_overhead_us, 1.5);

  auto doc = cal.to_json();
  doc.erase("staging");
  doc["conveyor_calibration"] = 1;
  std::ofstream(path) << doc.dump();
  Calibration old = Calibration::load(path);
  EXPECT_EQ(old.schema, 1);
  EXPECT_FALSE(old.staging);

  for (int schema : {0, kCalibrationSchema + 1}) {
    doc["conveyor_calibration"] = schema;
    std::ofstream(path) << doc.dump();
    try {
      Calibration::load(path);
      ADD_FAILURE() << "schema " << schema << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("stale"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace conveyor::test
