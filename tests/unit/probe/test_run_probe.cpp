// run_probe on the CPU with short sweeps: every kind of result is produced and consistent.
#include <gtest/gtest.h>

#include <cmath>

#include "conveyor/calibration.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"

namespace conveyor::test {
namespace {

ProbeOptions small() {
  ProbeOptions options;
  options.quick = true;
  options.repeats = 2;
  options.max_bytes = 64 << 10;
  return options;
}

TEST(RunProbe, CpuQuickGivesEveryKindOfRow) {
  std::vector<std::string> phases;
  ProbeOptions options = small();
  options.progress = [&](std::string_view line) { phases.emplace_back(line); };
  ProbeResults r = run_probe({find_device("cpu")}, options);
  EXPECT_FALSE(phases.empty());
  ASSERT_EQ(r.dispatch.size(), 1u);
  EXPECT_GT(r.dispatch[0].roundtrip_us, 0);
  ASSERT_EQ(r.models.size(), 1u);
  const ModelRow& m = r.models[0];
  EXPECT_EQ(m.model, MemoryModel::Host);
  EXPECT_DOUBLE_EQ(m.td_us, r.dispatch[0].roundtrip_us);
  EXPECT_DOUBLE_EQ(m.tm_us, m.fit.intercept_us - m.td_us);
  EXPECT_GT(m.bw_gbs, 0);
  EXPECT_TRUE(std::isfinite(m.fit.rms_residual_us));
  // 4 KiB, 16 KiB, 64 KiB for the copy and the task.
  EXPECT_EQ(r.bandwidth.size(), 6u);
  for (const auto& b : r.bandwidth) {
    EXPECT_LE(b.bytes, 64u << 10);
    EXPECT_GE(b.best_gbs, b.median_gbs);
  }
  EXPECT_EQ(r.attach.size(), 8u);
  // matmul n = 16..128 within 64 KiB per matrix: 16, 32, 64, 128; md5 4 KiB..64 KiB.
  std::size_t matmul = 0, md5 = 0;
  for (const auto& a : r.apps) {
    matmul += a.app == "matmul";
    md5 += a.app == "md5";
    EXPECT_EQ(a.device, "cpu");
    EXPECT_EQ(a.speedup_vs_cpu, std::optional<double>(1.0));
  }
  EXPECT_EQ(matmul, 4u);
  EXPECT_EQ(md5, 3u);
  EXPECT_TRUE(r.crossovers.empty());  // the CPU is the reference, not a candidate

  Calibration cal = make_calibration(r);
  ASSERT_EQ(cal.entries.size(), 1u);
  EXPECT_EQ(cal.entries[0].links.at("d2d").bytes, 64u << 10);
  EXPECT_EQ(cal.machine, current_machine());
}

TEST(RunProbe, BadOptionsAreUsageErrors) {
  ProbeOptions options = small();
  options.repeats = 0;
  EXPECT_THROW(run_probe({find_device("cpu")}, options), UsageError);
  options = small();
  options.max_bytes = 100;
  EXPECT_THROW(run_probe({find_device("cpu")}, options), UsageError);
  EXPECT_THROW(run_probe({}, small()), UsageError);
}

}  // namespace
}  // namespace conveyor::test
