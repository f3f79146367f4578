#pragma once
// The sizes and repetitions one probe run uses, from the options (run.cpp, apps.cpp).
#include <cstdint>
#include <vector>

#include "conveyor/probe.hpp"
#include "conveyor/stats.hpp"

namespace conveyor::probe {

struct Plan {
  std::vector<std::uint64_t> sweep;   ///< transfer and task sizes, 4 KiB by 4x
  std::vector<std::uint64_t> attach;  ///< small task sizes for the Tm fit
  std::vector<int> matmul_n;
  std::vector<std::uint64_t> md5_bytes;  ///< multiples of 64
  int repeats = 5;
  int cheap_repeats = 20;  ///< dispatch and attach points, which take microseconds
  int enqueue_burst = 100;
  double point_budget_s = 1.0;  ///< stop repeating a point after this much time (at least 2 runs)
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

/// Appends the application rows and crossovers for `devices` (CPU reference first).
void probe_apps(const std::vector<std::shared_ptr<Device>>& devices, const Plan& plan,
                const ProbeOptions& options, ProbeResults& out);

}  // namespace conveyor::probe
