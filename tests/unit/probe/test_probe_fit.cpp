// The pure parts of the probe: the offload fit and the crossover size.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"

namespace conveyor::test {
namespace {

TEST(OffloadFit, RecoversTmAndBandwidthFromExactPoints) {
  // T = Td + Tm + 2 bytes / BW with Td 36.9 us, Tm 59.6 us, BW 11.5 GB/s (the seed's dGPU).
  const double td = 36.9, tm = 59.6, bw = 11.5;
  std::vector<double> x, y;
  for (double bytes : {256.0, 1024.0, 4096.0, 16384.0, 65536.0}) {
    x.push_back(bytes);
    y.push_back(td + tm + 2 * bytes / (bw * 1e3));
  }
  OffloadFit fit = fit_offload(x, y, td);
  EXPECT_NEAR(fit.tm_us, tm, 1e-9);
  EXPECT_NEAR(fit.intercept_us, td + tm, 1e-9);
  EXPECT_NEAR(2 / fit.slope_us_per_byte / 1e3, bw, 1e-9);
  EXPECT_NEAR(fit.rms_residual_us, 0, 1e-9);
}

TEST(OffloadFit, ResidualsOfScatteredPoints) {
  // Alternating +1/-1 around a line through x = 0, 1, 2, 3: the fit has rms 0.8944...
  std::vector<double> x = {0, 1, 2, 3}, y = {11, 9, 11, 9};
  OffloadFit fit = fit_offload(x, y, 4);
  EXPECT_NEAR(fit.intercept_us, 10.6, 1e-9);
  EXPECT_NEAR(fit.slope_us_per_byte, -0.4, 1e-9);
  EXPECT_NEAR(fit.tm_us, 6.6, 1e-9);
  EXPECT_NEAR(fit.rms_residual_us, std::sqrt(0.8), 1e-9);
}

TEST(OffloadFit, NeedsTwoDistinctSizes) {
  std::vector<double> x = {64, 64}, y = {1, 2};
  EXPECT_THROW(fit_offload(x, y, 0), Error);
}

TEST(Crossover, SmallestSizeFromWhichTheDeviceKeepsWinning) {
  std::vector<std::uint64_t> sizes = {16, 32, 64, 128, 256};
  // Wins at 16 (noise), loses at 32, then wins from 64 on.
  std::vector<double> cpu = {1, 2, 4, 8, 16}, device = {0.5, 3, 3, 4, 5};
  EXPECT_EQ(crossover_size(sizes, cpu, device), std::optional<std::uint64_t>(64));
}

TEST(Crossover, AlwaysNeverAndEmpty) {
  std::vector<std::uint64_t> sizes = {1, 2, 3};
  std::vector<double> cpu = {5, 5, 5};
  std::vector<double> faster = {1, 1, 1}, slower = {9, 9, 9}, loses_last = {1, 1, 6},
                      tie = {1, 1, 5};
  EXPECT_EQ(crossover_size(sizes, cpu, faster), std::optional<std::uint64_t>(1));
  EXPECT_EQ(crossover_size(sizes, cpu, slower), std::nullopt);
  EXPECT_EQ(crossover_size(sizes, cpu, loses_last), std::nullopt);
  EXPECT_EQ(crossover_size(sizes, cpu, tie), std::nullopt);  // a tie does not pay
  EXPECT_EQ(crossover_size({}, {}, {}), std::nullopt);
}

TEST(Crossover, MismatchedLengthsAreAUsageError) {
  std::vector<std::uint64_t> sizes = {1, 2};
  std::vector<double> two = {1, 2}, one = {1};
  EXPECT_THROW(crossover_size(sizes, two, one), UsageError);
}

}  // namespace
}  // namespace conveyor::test
