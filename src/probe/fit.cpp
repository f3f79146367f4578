// The two pure computations of the probe: the offload model fit and the crossover size.
#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/stats.hpp"
#include "plan.hpp"

namespace conveyor {

OffloadFit fit_offload(std::span<const double> bytes, std::span<const double> time_us,
                       double td_us) {
  LinearFit line = fit_line(bytes, time_us);
  OffloadFit fit;
  fit.intercept_us = line.intercept;
  fit.slope_us_per_byte = line.slope;
  fit.rms_residual_us = line.rms_residual;
  // Tm may come out slightly negative where attaching memory costs nothing measurable: kept as
  // measured, so that the table shows the noise rather than hiding it.
  fit.tm_us = line.intercept - td_us;
  return fit;
}

std::optional<std::uint64_t> crossover_size(std::span<const std::uint64_t> sizes,
                                            std::span<const double> cpu_s,
                                            std::span<const double> device_s) {
  if (sizes.size() != cpu_s.size() || sizes.size() != device_s.size())
    throw UsageError(fmt::format("crossover: {} sizes but {} CPU and {} device times", sizes.size(),
                                 cpu_s.size(), device_s.size()));
  // Walk down from the largest size while the device keeps winning.
  std::optional<std::uint64_t> from;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (!(device_s[i] < cpu_s[i])) break;
    from = sizes[i];
  }
  return from;
}

namespace probe {

MoverFit fit_mover(std::uint64_t total_bytes, std::uint64_t block_a, double seconds_a,
                   std::uint64_t block_b, double seconds_b) {
  if (total_bytes == 0 || block_a == 0 || block_b == 0 || seconds_a <= 0 || seconds_b <= 0)
    throw Error("mover fit: needs bytes, two block sizes and two positive times");
  auto copies = [&](std::uint64_t block) {
    return static_cast<double>((total_bytes + block - 1) / block);
  };
  // "large": the run with fewer copies, the one least affected by the per-block cost.
  double n_small = copies(block_a), t_small = seconds_a, n_large = copies(block_b),
         t_large = seconds_b;
  if (n_large > n_small) std::swap(n_small, n_large), std::swap(t_small, t_large);
  double overhead = n_small > n_large ? (t_small - t_large) / (n_small - n_large) : 0.0;
  double copy_s = t_large - n_large * overhead;
  if (overhead < 0 || copy_s <= 0) overhead = 0, copy_s = t_large;
  return {static_cast<double>(total_bytes) / copy_s / 1e9, overhead * 1e6};
}

}  // namespace probe
}  // namespace conveyor
