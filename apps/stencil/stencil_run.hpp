#pragma once
/// One configuration of the stencil application from start to finish, as `conveyor stencil` runs
/// it: validate, fill the grid, start a runtime, warm up, run the sweeps `repeat` times, check.
///
///   RunConfig c;  c.n = 4096;  c.sweeps = 20;  c.runtime.devices = {"opencl:0"};  c.check = true;
///   RunResult r = run_stencil(c);   // r.gbs, r.best.stats.h2d_copies, r.mismatches
#include <cstdint>
#include <string>
#include <vector>

#include "conveyor/progress.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/point.hpp"
#include "stencil/stencil.hpp"

namespace conveyor::apps::stencil {

struct RunConfig {
  int n = 4096;
  int block = 0;  ///< tile size; 0: block_for (the tile rule, block_size.hpp)
  int sweeps = 20;
  /// Sweeps per task (temporal blocking, halo and corners this wide); 1: one sweep per task. At
  /// most the narrowest tile's side (refused otherwise).
  int temporal_block = 1;
  Coefficients coefficients;
  /// Devices, CPU count, scheduler, device memory limit. Validated here before the runtime starts.
  RuntimeOptions runtime;
  int repeat = 1;       ///< runs of `sweeps` sweeps timed, each from the initial grid
  bool warmup = true;   ///< a 3 x 3-tile run first (builds the OpenCL program, first touches)
  bool check = false;   ///< compare with the sequential reference after the last run
  std::string trace;    ///< write the runtime's Chrome trace here (empty: none)
  ProgressFn progress;  ///< hears of the warm-up, each timed run and the check (may be empty)
};

struct RunResult {
  int block = 0;  ///< the tile size used
  Sweeps best;    ///< the fastest run (its copies and tasks)
  std::vector<double> times_s;
  double median_time_s = 0;
  double gbs = 0;         ///< sweeps * sweep_bytes(n) / best time, in 1e9 B/s
  double task_bytes = 0;  ///< what one task holds on a device: 2 tiles, 8 strips, 8 corners
  bool checked = false;
  std::uint64_t mismatches = 0;  ///< cells that differ from the reference (when checked)
  double max_abs_diff = 0;       ///< the largest difference (when checked)
  std::vector<std::string> workers;
  bool passed() const { return !checked || mismatches == 0; }
};

/// Throws UsageError for a bad configuration (before allocating anything), Error for a failure.
/// A result that differs from the reference is not thrown here: see RunResult::passed.
RunResult run_stencil(const RunConfig& config);

/// The checks run_stencil does first, on their own. `needs_memory` false: not the check that the
/// whole grids fit in this host's memory (a simulated cluster that runs no kernels touches none).
void validate(const RunConfig& config, bool needs_memory = true);

/// config.block, or when it is 0 the shared tile rule (common::block_for with the sweeps' tasks):
/// with devices under a model scheduler, the tile the performance models say suits the fastest
/// devices; else by worker count, CPU workers plus devices (docs/stencil.md, "Tile size").
int block_for(const RunConfig& config);

/// Bytes one task holds on a device at block side `block` and strip width `width`: its input and
/// output tiles, eight strips (four read, four written) and, for width > 1, eight corners.
double task_bytes(int block, int width);

}  // namespace conveyor::apps::stencil
