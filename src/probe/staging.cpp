// The staged pipeline's inputs (seed 000): the plain STREAM kernels per thread count, the rate of
// reading a block already in the cache, and each host mover's copy rate and per-block overhead.
// `conveyor stream --pipeline --strategy auto` predicts from these instead of timing itself.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
#include "core/seconds_of.hpp"
#include "core/thread_team.hpp"
#include "plan.hpp"
#include "stream/plain.hpp"

namespace conveyor::probe {
namespace {

constexpr std::size_t kNearBytes = std::size_t{1} << 20;  // per input: two fit in any L3
constexpr int kNearPasses = 16;
constexpr int kDepth = 4;  // the pipeline's default ring

}  // namespace

std::vector<int> staging_thread_counts(int cores) {
  std::vector<int> counts;
  for (int t = 1; t < cores; t *= 2) counts.push_back(t);
  counts.push_back(std::max(cores, 1));
  return counts;
}

StagingCalibration probe_staging(const StagingPlan& plan, const ProbeOptions& options) {
  if (plan.elements < 64 || plan.threads.empty() || plan.mover_blocks.size() != 2)
    throw UsageError("probe: the staging plan needs arrays, thread counts and two block sizes");
  StagingCalibration cal;
  cal.elements = plan.elements;
  cal.cpus = static_cast<int>(std::thread::hardware_concurrency());
  const std::size_t n = plan.elements;
  stream::HostArray a = stream::allocate_array(n), b = stream::allocate_array(n),
                    c = stream::allocate_array(n);
  const int most = *std::max_element(plan.threads.begin(), plan.threads.end());
  stream::fill_arrays(a.get(), b.get(), c.get(), n, most, ThreadBinding::Scatter);

  for (int threads : plan.threads) {
    if (options.progress)
      options.progress(fmt::format("cpu: plain STREAM kernels, {} threads", threads));
    core::ThreadTeam team(threads, core::ThreadTeam::placement(threads, ThreadBinding::Scatter));
    for (StreamKernel k : kStreamKernels) {
      const BlockKernel kernel = stream_block_kernel(k, StreamVariant::Tuned, 3.0);
      const BlockArrays arrays = stream_block_arrays(k, a.get(), b.get(), c.get(), n);
      auto t = measure(plan.repeats, plan.budget_s, [&] {
        return core::seconds_of([&] { stream::plain_run(team, kernel, arrays); });
      });
      cal.plain.push_back({threads, std::string(traits(k).name),
                           static_cast<double>(stream_bytes_per_element(k) * n) / t.best / 1e9});
    }
  }

  {  // One thread reading two blocks that stay in the cache, as a computing thread reads its ring.
    core::ThreadTeam one(1, core::ThreadTeam::placement(1, ThreadBinding::Scatter));
    const std::size_t m = kNearBytes / sizeof(double);
    const BlockKernel dot = stream_block_kernel(StreamKernel::Dot, StreamVariant::Tuned, 0);
    const BlockArrays near{a.get(), b.get(), nullptr, m};
    auto t = measure(plan.repeats, plan.budget_s, [&] {
      return core::seconds_of([&] {
        for (int pass = 0; pass < kNearPasses; ++pass) stream::plain_run(one, dot, near);
      });
    });
    cal.near_read_gbs = 2.0 * kNearBytes * kNearPasses / t.best / 1e9;
  }

  // Each mover copies the whole array into a one-lane ring (the pipeline's copy-only phase) with
  // two block sizes: the difference in time over the difference in copies is the per-block cost.
  for (const std::string& name : plan.movers) {
    std::unique_ptr<Mover> probe_mover;
    try {
      probe_mover = make_mover(name);
    } catch (const UsageError&) {
      continue;  // not on this machine (dsa)
    }
    if (!probe_mover->stages()) continue;
    if (options.progress) options.progress(fmt::format("cpu: {} mover", name));
    // The two block sizes alternate (after one untimed run each), so that both see the same
    // machine: the per-block cost is a small difference of two times.
    std::unique_ptr<Pipeline> pipelines[2];
    for (int i = 0; i < 2; ++i) {
      PipelineConfig config;
      config.threads = 1;
      config.block_bytes = plan.mover_blocks[i];
      config.depth = kDepth;
      config.strategy = PipelineStrategy::All;
      pipelines[i] = std::make_unique<Pipeline>(make_mover(name), config);
      pipelines[i]->set_phase(PipelinePhase::CopyOnly);
    }
    const BlockKernel copy = stream_block_kernel(StreamKernel::Copy, StreamVariant::Tuned, 0);
    const BlockArrays arrays =
        stream_block_arrays(StreamKernel::Copy, a.get(), b.get(), c.get(), n);
    auto once = [&](int i) { return core::seconds_of([&] { pipelines[i]->run(copy, arrays); }); };
    once(0);
    once(1);
    double best_s[2] = {1e30, 1e30}, spent = 0;
    for (int r = 0; r < plan.repeats; ++r) {
      for (int i = 0; i < 2; ++i) {
        const double t = once(i);
        best_s[i] = std::min(best_s[i], t);
        spent += t;
      }
      if (spent > plan.budget_s && r >= 1) break;
    }
    MoverFit fit = fit_mover(n * sizeof(double), plan.mover_blocks[0], best_s[0],
                             plan.mover_blocks[1], best_s[1]);
    MoverCalibration m;
    m.mover = name;
    m.copy_gbs = fit.copy_gbs;
    m.block_overhead_us = fit.block_overhead_us;
    m.uses_cpu = name == "thread";
    m.copy_threads = 1;
    cal.movers.push_back(m);
  }
  return cal;
}

}  // namespace conveyor::probe
