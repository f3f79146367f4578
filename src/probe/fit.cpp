// The two pure computations of the probe: the offload model fit and the crossover size.
#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/stats.hpp"

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

}  // namespace conveyor
