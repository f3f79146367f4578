#pragma once
// The sizes and repetitions one probe run uses, from the options (probe_run.cpp, apps.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "conveyor/probe.hpp"
#include "conveyor/stats.hpp"

namespace conveyor::probe {

/// The staged pipeline's measurements (staging.cpp).
struct StagingPlan {
  std::size_t elements = 0;                          ///< per array; 0: not measured
  std::vector<int> threads;                          ///< thread counts of the plain kernels
  std::vector<std::string> movers{"thread", "dsa"};  ///< those present are measured
  std::vector<std::size_t> mover_blocks{std::size_t{64} << 10, std::size_t{1} << 20};
  int repeats = 5;
  double budget_s = 1.0;
};

struct Plan {
  std::vector<std::uint64_t> sweep;   ///< transfer and task sizes, 4 KiB by 4x
  std::vector<std::uint64_t> attach;  ///< small task sizes for the Tm fit
  std::vector<int> matmul_n;
  std::vector<std::uint64_t> md5_bytes;  ///< multiples of 64
  int repeats = 5;
  int cheap_repeats = 20;  ///< dispatch and attach points, which take microseconds
  int enqueue_burst = 100;
  double point_budget_s = 1.0;  ///< stop repeating a point after this much time (at least 2 runs)
  StagingPlan staging;
};

Plan make_plan(const ProbeOptions& options);

/// Runs `once` (which returns seconds) once untimed, then up to `repeats` times within the budget.
template <typename F>
TimeSummary measure(int repeats, double budget_s, F&& once) {
  once();
  std::vector<double> samples;
  double spent = 0;
  for (int i = 0; i < repeats; ++i) {
    samples.push_back(once());
    spent += samples.back();
    if (spent > budget_s && samples.size() >= 2) break;
  }
  return summarize(samples);
}

/// 1, 2, 4, ... below `cores`, then `cores`.
std::vector<int> staging_thread_counts(int cores);

/// Measures what the staged pipeline's model needs (StagingCalibration) on the CPU.
StagingCalibration probe_staging(const StagingPlan& plan, const ProbeOptions& options);

/// A mover's copy rate and per-block cost from the best times of copying `total_bytes` in blocks
/// of two sizes: time = copies x overhead + bytes / rate. A negative overhead (noise) is taken as
/// 0 and the rate from the larger blocks.
struct MoverFit {
  double copy_gbs = 0;
  double block_overhead_us = 0;
};
MoverFit fit_mover(std::uint64_t total_bytes, std::uint64_t block_a, double seconds_a,
                   std::uint64_t block_b, double seconds_b);

/// Appends the application rows and crossovers for `devices` (CPU reference first).
void probe_apps(const std::vector<std::shared_ptr<Device>>& devices, const Plan& plan,
                const ProbeOptions& options, ProbeResults& out);

}  // namespace conveyor::probe
