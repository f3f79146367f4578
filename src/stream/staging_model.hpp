#pragma once
// The staged pipeline's model: from the probe's calibration (the plain kernel's rate per thread
// count, a mover's copy rate and per-block overhead, the rate of reading the staged ring), predict
// the plain kernel, `all` and `split` for one thread count, kernel and size, so that
// `--strategy auto` need not time itself. Seed 002's question asked of seed 000's pipeline: when
// does handing the copies to a mover beat the cores doing them?
//
//   auto p = predict_staging(*cal.staging, {.mover = "thread", .threads = 1,
//                                           .kernel = StreamKernel::Triad});
//   if (p.usable && p.staging) config.strategy = p.strategy;
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "conveyor/calibration.hpp"
#include "conveyor/pipeline.hpp"

namespace conveyor::stream {

struct StagingQuery {
  std::string mover = "thread";
  int copy_threads = 1;  ///< thread mover: --copy-threads
  int threads = 1;
  StreamKernel kernel = StreamKernel::Triad;
  StreamVariant variant = StreamVariant::Tuned;
  ThreadBinding binding = ThreadBinding::Scatter;
  std::size_t elements = std::size_t{1} << 25;
  std::size_t block_bytes = std::size_t{1} << 20;
};

struct StagingPrediction {
  bool usable = false;  ///< false: the calibration cannot predict this case; `why_not` says why
  std::string why_not;
  double plain_gbs = 0, all_gbs = 0, split_gbs = 0;   ///< predicted, bytes read + written / s
  bool staging = false;                               ///< a staged strategy wins by kAutoMargin
  PipelineStrategy strategy = PipelineStrategy::All;  ///< the better staged one (when staging)
};

/// The model (docs/pipeline.md, "Strategy"). Per run of N elements, R bytes read and W written per
/// element, S of the R staged by the mover (all: R, split: R / 2), t threads:
///   plain     N (R + W) / B(t)                 B(t): the plain kernel's rate at t threads
///   cores     N (R - S + W) / B(t) + N S / (t near)
///   mover     (N S / copy + copies x overhead) / copy threads
///   memory    N (R + W) / B_max                B_max: the best plain rate at any thread count
///   shared    (t cores + mover work) / cpus    only when a copy thread has no CPU of its own
///   staged    max(cores, mover, memory, shared) + the first block of each lane
StagingPrediction predict_staging(const StagingCalibration& calibration, const StagingQuery& q);

/// The plain kernel's rate at `threads`, interpolated linearly between the thread counts measured
/// (held at the ends; a rate below that of fewer threads is raised to it); nullopt when the kernel
/// was not measured.
std::optional<double> plain_rate_gbs(const StagingCalibration& calibration, StreamKernel kernel,
                                     int threads);

}  // namespace conveyor::stream
