// run_probe: the basic benchmarks of seed 004 per device and memory model (bandwidth versus size,
// dispatch, attach, the model row), then the application pair (apps.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/records.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
#include "plan.hpp"

namespace conveyor {
namespace probe {

Plan make_plan(const ProbeOptions& options) {
  if (options.repeats < 1)
    throw UsageError(fmt::format("--repeats must be at least 1, not {}", options.repeats));
  if (options.max_bytes < 4096)
    throw UsageError(
        fmt::format("--max-size must be at least 4 KiB, not {}", format_bytes(options.max_bytes)));
  Plan plan;
  const std::uint64_t top =
      options.quick ? std::min<std::uint64_t>(options.max_bytes, 1u << 20) : options.max_bytes;
  for (std::uint64_t size = 4096; size <= top; size *= 4) plan.sweep.push_back(size);
  plan.attach = {256, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  const int max_n = options.quick ? 128 : 1024;
  for (int n = 16; n <= max_n; n *= 2)
    if (4ull * n * n <= options.max_bytes) plan.matmul_n.push_back(n);
  const std::uint64_t max_md5 = options.quick ? 256u << 10 : 16u << 20;
  for (std::uint64_t size = 4096; size <= std::min(max_md5, options.max_bytes); size *= 4)
    plan.md5_bytes.push_back(size);
  plan.repeats = options.quick ? std::min(options.repeats, 3) : options.repeats;
  plan.cheap_repeats = std::max(options.quick ? 10 : 50, 10 * plan.repeats);
  plan.enqueue_burst = options.quick ? 20 : 100;
  plan.point_budget_s = options.quick ? 0.2 : 1.0;
  // STREAM's rule for the arrays (4x the caches), and at least 32 MiB so that a thread's chunk
  // holds many blocks. --quick measures nothing here: its arrays would sit in the caches.
  if (options.staging && !options.quick) {
    const Topology& topology = host_topology();
    plan.staging.elements =
        std::max<std::size_t>(std::size_t{1} << 22, 4 * topology.llc_total_bytes / sizeof(double));
    plan.staging.threads = probe::staging_thread_counts(
        static_cast<int>(std::max<std::size_t>(1, topology.cores.size())));
    plan.staging.repeats = plan.repeats;
    // Ten plain points and a mover pair: a quarter second each keeps this part to a few seconds
    // even on a loaded machine (a quiet one finishes every repetition well within it).
    plan.staging.budget_s = 0.25;
  }
  return plan;
}

namespace {

/// The largest buffer the device can be asked for: an eighth of its memory, and no more than one
/// allocation may hold where the backend reports that limit.
std::uint64_t device_limit(const Device& device) {
  std::uint64_t limit = UINT64_MAX;
  if (device.info().memory_bytes > 0) limit = device.info().memory_bytes / 8;
  const auto details = device_details(device.info());
  if (details.contains("max_alloc_bytes") && details["max_alloc_bytes"].is_number_unsigned())
    limit = std::min(limit, details["max_alloc_bytes"].get<std::uint64_t>());
  return limit;
}

void say(const ProbeOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

/// Best empty-kernel round trip (seconds) over one window of repetitions.
double roundtrip_window(ProbeTarget& target, const Plan& plan) {
  return measure(plan.cheap_repeats, plan.point_budget_s,
                 [&] { return target.dispatch_roundtrip(); })
      .best;
}

/// Sweeps of one memory model; appends its rows and a model row whose Td and Tm the caller sets.
/// `td_s` is lowered to the best round trip of a window measured just before the attach points.
void probe_model(const std::string& id, ProbeTarget& target, MemoryModel model, const Plan& plan,
                 std::uint64_t limit, double& td_s, ProbeResults& out) {
  std::vector<std::uint64_t> sizes;
  for (auto size : plan.sweep)
    if (size <= limit) sizes.push_back(size);
  if (sizes.empty())
    throw Error(fmt::format("{}: even the smallest probe size ({}) exceeds its limit ({})", id,
                            format_bytes(plan.sweep.front()), format_bytes(limit)));

  for (Direction direction : target.directions(model))
    for (auto size : sizes) {
      auto t = measure(plan.repeats, plan.point_budget_s,
                       [&] { return target.transfer(direction, model, size); });
      out.bandwidth.push_back({id, model, std::string(to_string(direction)), size, t.best,
                               size / t.best / 1e9, size / t.median / 1e9});
    }

  // The memory task over the sweep: read + write of every byte, through whatever the model moves.
  double bw_gbs = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto t = measure(plan.repeats, plan.point_budget_s,
                     [&] { return target.memory_task(model, sizes[i]); });
    double best = 2.0 * sizes[i] / t.best / 1e9;
    out.bandwidth.push_back(
        {id, model, "task", sizes[i], t.best, best, 2.0 * sizes[i] / t.median / 1e9});
    if (i + 2 >= sizes.size()) bw_gbs = std::max(bw_gbs, best);  // BW: the two largest sizes
  }

  td_s = std::min(td_s, roundtrip_window(target, plan));
  std::vector<double> xs, ys;
  for (auto size : plan.attach) {
    if (size > limit) continue;
    auto t = measure(plan.cheap_repeats, plan.point_budget_s,
                     [&] { return target.memory_task(model, size); });
    out.attach.push_back({id, model, size, t.best * 1e6});
    xs.push_back(static_cast<double>(size));
    ys.push_back(t.best * 1e6);
  }
  out.models.push_back({id, model, 0, 0, bw_gbs, fit_offload(xs, ys, 0)});
}

}  // namespace
}  // namespace probe

ProbeResults run_probe(const std::vector<std::shared_ptr<Device>>& devices,
                       const ProbeOptions& options) {
  probe::Plan plan = probe::make_plan(options);
  if (devices.empty()) throw UsageError("probe: no device to probe");
  ProbeResults out;
  for (const auto& device : devices) {
    const std::string& id = device->info().id;
    probe::say(options, fmt::format("{}: dispatch", id));
    auto target = device->make_probe_target();
    auto enqueue = probe::measure(plan.cheap_repeats, plan.point_budget_s,
                                  [&] { return target->dispatch_enqueue(plan.enqueue_burst); });
    // Td is the best round trip over several windows (here and before each model's attach
    // points): on a shared machine one window can fall into a slow period of the driver's threads,
    // and a Td from such a window would exceed the attach intercepts measured later.
    double td_s = probe::roundtrip_window(*target, plan);
    std::size_t first_model = out.models.size();
    std::uint64_t limit = probe::device_limit(*device);
    for (MemoryModel model : target->memory_models()) {
      probe::say(options, fmt::format("{}: {} transfers and tasks", id, to_string(model)));
      probe::probe_model(id, *target, model, plan, limit, td_s, out);
    }
    const double td_us = td_s * 1e6;
    out.dispatch.push_back({id, enqueue.best * 1e6, td_us});
    for (std::size_t i = first_model; i < out.models.size(); ++i) {
      ModelRow& m = out.models[i];
      m.td_us = td_us;
      m.fit.tm_us = m.fit.intercept_us - td_us;
      m.tm_us = m.fit.tm_us;
    }
  }
  const bool cpu = std::any_of(devices.begin(), devices.end(),
                               [](const auto& d) { return d->info().kind == DeviceKind::Cpu; });
  if (cpu && plan.staging.elements > 0) {
    out.staging = probe::probe_staging(plan.staging, options);
  } else if (cpu && options.staging) {
    out.notes.push_back(
        "--quick: no staging measurements (the arrays would sit in the caches); the staged "
        "pipeline's --strategy auto keeps those of an earlier full probe, else times itself");
  }
  if (options.apps) probe::probe_apps(devices, plan, options, out);
  if (options.quick)
    out.notes.push_back(
        "--quick: sizes up to 1 MiB fit in caches, so BW is not the memory bandwidth");
  return out;
}

}  // namespace conveyor
