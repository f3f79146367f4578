// run_pipeline_sweep(): the seed's figure 5, CPU-only against pipelined, per thread count.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "conveyor/pipeline.hpp"
#include "core/thread_team.hpp"
#include "stream/cpu_kernels.hpp"
#include "stream/plain.hpp"
#include "stream/staging_model.hpp"

namespace conveyor {
namespace {

using stream::HostArray;
using stream::StagingPrediction;
using stream::StagingQuery;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Timing {
  double best = 0, median = 0, worst = 0;
};
template <typename Fn>
Timing time_runs(int repeats, Fn&& fn) {
  std::vector<double> t;
  fn();  // warm-up, not counted
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(seconds_since(start));
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2], t.back()};
}

// Times two runs alternately (after one warm-up each), so that both see the same machine: on a
// shared host the load changes from second to second.
template <typename A, typename B>
std::pair<Timing, Timing> time_alternating(int repeats, A&& a, B&& b) {
  std::vector<double> ta, tb;
  a();
  b();
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    a();
    ta.push_back(seconds_since(start));
    start = std::chrono::steady_clock::now();
    b();
    tb.push_back(seconds_since(start));
  }
  auto summary = [](std::vector<double>& t) {
    std::sort(t.begin(), t.end());
    return Timing{t.front(), t[t.size() / 2], t.back()};
  };
  return {summary(ta), summary(tb)};
}

// Checks a kernel's output against its statement on a sample of elements (and the last one),
// and a dot product against the plain run's.
bool check(StreamKernel kernel, const double* a, const double* b, const double* c, std::size_t n,
           double scalar, double dot, double reference_dot) {
  if (n == 0) return true;
  auto close = [](double x, double y) { return std::fabs(x - y) <= 1e-13 * std::fabs(y) + 1e-300; };
  std::size_t step = std::max<std::size_t>(1, n / 4099);
  for (std::size_t i = 0; i < n; i = (i + step < n || i == n - 1) ? i + step : n - 1) {
    bool ok = true;
    switch (kernel) {
      case StreamKernel::Copy:
        ok = close(c[i], a[i]);
        break;
      case StreamKernel::Scale:
        ok = close(b[i], scalar * c[i]);
        break;
      case StreamKernel::Add:
        ok = close(c[i], a[i] + b[i]);
        break;
      case StreamKernel::Triad:
        ok = close(a[i], b[i] + scalar * c[i]);
        break;
      case StreamKernel::Dot:
        ok = true;
        break;
    }
    if (!ok) return false;
    if (i == n - 1) break;
  }
  if (kernel == StreamKernel::Dot)
    return std::fabs(dot - reference_dot) <= 1e-12 * std::fabs(reference_dot);
  return true;
}

// How strategy auto decided one row.
struct AutoDecision {
  StagingPrediction predicted;  // usable when the calibration could predict the row
  bool by_model = false;
  double timed_all = 0, timed_split = 0;  // plain / staged best time of the timing; 0: not timed
  bool staging = true;
  PipelineStrategy strategy = PipelineStrategy::All;
};

std::string choice(bool staging, PipelineStrategy strategy) {
  return staging ? std::string(to_string(strategy)) : "none";
}

void add_once(std::vector<std::string>& notes, const std::string& note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
}

std::string no_model_note(const StagingPrediction& p) {
  return "strategy auto: " + p.why_not + ": those rows are timed";
}

// One line per auto row: what was chosen, and why (the predicted rates, or the timed speedups).
std::string decision_note(int threads, StreamKernel k, const AutoDecision& d) {
  std::string head = fmt::format("auto, {} thread{}, {}: {}", threads, threads == 1 ? "" : "s",
                                 traits(k).name, choice(d.staging, d.strategy));
  std::string model;
  if (d.predicted.usable)
    model = fmt::format("predicted plain {:.2f}, all {:.2f}, split {:.2f} GB/s",
                        d.predicted.plain_gbs, d.predicted.all_gbs, d.predicted.split_gbs);
  if (d.by_model) return fmt::format("{} (model: {})", head, model);
  std::string timed = fmt::format("timed all {:.2f}x, split {:.2f}x of the plain kernel",
                                  d.timed_all, d.timed_split);
  if (!d.predicted.usable) return fmt::format("{} ({})", head, timed);
  return fmt::format("{} ({}; the model would choose {}: {})", head, timed,
                     choice(d.predicted.staging, d.predicted.strategy), model);
}

bool device_mover(const std::string& name) {
  return name.rfind("opencl", 0) == 0 || name.rfind("cuda", 0) == 0;
}

StagingQuery query_of(const PipelineSweepOptions& o, int threads, StreamKernel kernel) {
  StagingQuery q;
  q.mover = o.mover;
  q.copy_threads = o.mover_options.copy_threads;
  q.threads = threads;
  q.kernel = kernel;
  q.variant = o.variant;
  q.binding = o.binding;
  q.elements = o.elements;
  q.block_bytes = o.block_bytes;
  return q;
}

// Auto: from the calibration's model when it can predict this row (and --calibrate did not ask
// for timing), else a short timing (3 alternating runs against the plain kernel) of all and
// split. Either way staging is kept only when it beats the plain kernel.
template <typename Make, typename Plain, typename Staged>
AutoDecision decide_auto(const PipelineSweepOptions& o, int threads, StreamKernel k, Make&& make,
                         Plain&& plain_fn, Staged&& staged_run, std::vector<std::string>& notes) {
  AutoDecision d;
  if (o.staging_model) {
    d.predicted = stream::predict_staging(*o.staging_model, query_of(o, threads, k));
    if (!d.predicted.usable) add_once(notes, no_model_note(d.predicted));
  }
  if (d.predicted.usable && !o.calibrate) {
    d.by_model = true;
    d.staging = d.predicted.staging;
    d.strategy = d.predicted.strategy;
  } else {
    double best_ratio = 0;
    for (PipelineStrategy s : {PipelineStrategy::All, PipelineStrategy::Split}) {
      auto p = make(s);
      auto [plain_t, piped_t] = time_alternating(3, plain_fn, [&] { staged_run(*p); });
      double ratio = plain_t.best / piped_t.best;
      (s == PipelineStrategy::All ? d.timed_all : d.timed_split) = ratio;
      if (ratio > best_ratio) best_ratio = ratio, d.strategy = s;
    }
    // Three runs on a shared machine cannot tell smaller gains than the margin from noise.
    d.staging = best_ratio > kAutoMargin;
  }
  notes.push_back(decision_note(threads, k, d));
  return d;
}

// What an auto row carries of its decision.
void record_decision(PipelineRow& row, const AutoDecision& d) {
  row.decided_by = d.by_model ? "model" : "timing";
  if (d.predicted.usable) {
    row.predicted_plain_gbs = d.predicted.plain_gbs;
    row.predicted_all_gbs = d.predicted.all_gbs;
    row.predicted_split_gbs = d.predicted.split_gbs;
    row.model_strategy = choice(d.predicted.staging, d.predicted.strategy);
  }
  row.timed_all_speedup = d.timed_all;
  row.timed_split_speedup = d.timed_split;
}

}  // namespace

PipelineSweep run_pipeline_sweep(const PipelineSweepOptions& o) {
  if (o.threads.empty()) throw UsageError("pipeline sweep: no thread counts");
  if (o.repeats < 1) throw UsageError("pipeline sweep: repeats must be at least 1");
  if (o.elements == 0) throw UsageError("pipeline sweep: no elements");
  PipelineSweep sweep;
  const bool on_device = device_mover(o.mover);
  // Declared before the device stream, which may keep them page-locked until it is destroyed.
  HostArray a, b, c;
  std::unique_ptr<DeviceStream> device;
  if (on_device) {
    device = make_device_stream(o.mover, {o.block_bytes, o.depth});
    sweep.notes.push_back(
        "device rows: the kernel runs on the device, host arrays staged through its copy queues; "
        "measured once per kernel and compared with the CPU-only run of each thread count");
  } else {
    make_mover(o.mover, o.mover_options);  // fails early (e.g. no DSA work queue)
  }

  a = stream::allocate_array(o.elements);
  b = stream::allocate_array(o.elements);
  c = stream::allocate_array(o.elements);
  const int max_threads = *std::max_element(o.threads.begin(), o.threads.end());
  stream::fill_arrays(a.get(), b.get(), c.get(), o.elements, max_threads, o.binding);
  const double scalar = 3.0;
  std::vector<std::pair<StreamKernel, Timing>> device_timings;
  for (StreamKernel k : o.kernels) {
    if (!device) break;
    double dot = 0;
    Timing t = time_runs(
        o.repeats, [&] { dot = device->run(k, a.get(), b.get(), c.get(), o.elements, scalar); });
    device_timings.emplace_back(k, t);
  }
  if (device) sweep.notes.insert(sweep.notes.begin(), device->describe());

  const std::size_t steps = o.threads.size() * o.kernels.size();
  std::size_t step = 0;
  for (int threads : o.threads) {
    core::ThreadTeam team(threads, core::ThreadTeam::placement(threads, o.binding));
    for (StreamKernel k : o.kernels) {
      tell(o.progress, "thread counts x kernels", step++, steps);
      const BlockKernel kernel = stream_block_kernel(k, o.variant, scalar);
      const BlockArrays arrays = stream_block_arrays(k, a.get(), b.get(), c.get(), o.elements);
      const double bytes =
          static_cast<double>(8 * (traits(k).words_read + traits(k).words_written) * o.elements);
      auto row_from = [&](const Timing& t, std::string pipeline, std::string strategy) {
        PipelineRow row;
        row.threads = threads;
        row.kernel = k;
        row.pipeline = std::move(pipeline);
        row.strategy = std::move(strategy);
        row.best_s = t.best;
        row.best_gbs = bytes / t.best / 1e9;
        row.median_gbs = bytes / t.median / 1e9;
        row.worst_gbs = bytes / t.worst / 1e9;
        return row;
      };

      double reference_dot = 0;
      auto plain_fn = [&] { reference_dot = stream::plain_run(team, kernel, arrays); };
      if (device) {
        Timing plain = time_runs(o.repeats, plain_fn);
        PipelineRow cpu = row_from(plain, "none", "");
        cpu.validated =
            check(k, a.get(), b.get(), c.get(), o.elements, scalar, reference_dot, reference_dot);
        sweep.rows.push_back(cpu);
        auto it = std::find_if(device_timings.begin(), device_timings.end(),
                               [&](const auto& p) { return p.first == k; });
        PipelineRow row = row_from(it->second, o.mover, "all");
        double dot = device->run(k, a.get(), b.get(), c.get(), o.elements, scalar);
        row.validated = check(k, a.get(), b.get(), c.get(), o.elements, scalar, dot, reference_dot);
        row.speedup = row.best_gbs / cpu.best_gbs;
        sweep.rows.push_back(row);
        continue;
      }

      auto make = [&](PipelineStrategy strategy) {
        PipelineConfig config;
        config.threads = threads;
        config.binding = o.binding;
        config.block_bytes = o.block_bytes;
        config.depth = o.depth;
        config.strategy = strategy;
        config.variant = o.variant;
        return std::make_unique<Pipeline>(make_mover(o.mover, o.mover_options), config);
      };
      AutoDecision decision;
      decision.strategy = o.strategy;
      if (o.strategy == PipelineStrategy::Auto)
        decision = decide_auto(
            o, threads, k, make, plain_fn, [&](Pipeline& p) { p.run(kernel, arrays); },
            sweep.notes);
      const bool staging = decision.staging;
      const PipelineStrategy strategy = decision.strategy;
      std::unique_ptr<Pipeline> p;
      if (staging) p = make(strategy);
      double dot = 0;
      auto piped_fn = [&] {
        dot = staging ? p->run(kernel, arrays) : stream::plain_run(team, kernel, arrays);
      };
      auto [plain_t, piped_t] = time_alternating(o.repeats, plain_fn, piped_fn);
      PipelineRow cpu = row_from(plain_t, "none", "");
      plain_fn();
      cpu.validated =
          check(k, a.get(), b.get(), c.get(), o.elements, scalar, reference_dot, reference_dot);
      sweep.rows.push_back(cpu);
      // Auto chose no staging: the row is the plain kernel, labelled strategy "none".
      PipelineRow row =
          row_from(piped_t, o.mover, staging ? std::string(to_string(strategy)) : "none");
      piped_fn();
      row.validated = check(k, a.get(), b.get(), c.get(), o.elements, scalar, dot, reference_dot);
      if (staging && p->mover().stages()) row.staged_fraction = p->staged_fraction();
      if (staging && o.overlap && p->mover().stages()) {
        p->set_phase(PipelinePhase::CopyOnly);
        row.copy_s = time_runs(3, [&] { p->run(kernel, arrays); }).best;
        p->set_phase(PipelinePhase::ComputeOnly);
        row.compute_s = time_runs(3, [&] { p->run(kernel, arrays); }).best;
        p->set_phase(PipelinePhase::Full);
        // ComputeOnly wrote outputs from stale staging buffers: put the right values back.
        p->run(kernel, arrays);
      }
      row.speedup = row.best_gbs / cpu.best_gbs;
      if (o.strategy == PipelineStrategy::Auto) record_decision(row, decision);
      sweep.rows.push_back(row);
    }
  }
  return sweep;
}

}  // namespace conveyor
