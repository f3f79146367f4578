#include "stencil/stencil_run.hpp"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/block_size.hpp"
#include "common/median.hpp"
#include "common/memory_check.hpp"
#include "common/trace_phases.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "stencil/grid.hpp"
#include "stencil/stencil_check.hpp"
#include "stencil/stencil_graph.hpp"

namespace conveyor::apps::stencil {
namespace {

using common::TracePhase;

// An n x n grid, left uninitialised here: fill_initial writes it on every core, which is also
// where its pages are first touched.
std::unique_ptr<double[]> new_grid(int n) {
  return std::unique_ptr<double[]>(new double[static_cast<std::size_t>(n) * n]);
}

bool simulated(const RunConfig& c) { return !c.runtime.platform.empty(); }
// Whether the run touches the grids: a real run, or a simulated one that runs the kernels. A
// simulation that runs none only passes tile addresses around (the grids reserved, not backed:
// common::HostMatrix), so n = 32768 on a modelled GPU node needs no 16 GiB here.
bool touches_grids(const RunConfig& c) { return !simulated(c) || c.runtime.platform_run_kernels; }

void validate_device(const RunConfig& c, const std::string& id, const StencilCodelet& codelet) {
  auto device = find_device(id);  // UsageError naming the devices that exist
  const DeviceInfo& info = device->info();
  if (info.kind == DeviceKind::Cpu)
    throw UsageError("stencil: '" + id + "' is the host; name it as 'cpu' in --devices");
  if (!codelet.jacobi.has(info.kind))
    throw UsageError("stencil: this build has no kernel for " + id);
  if (info.kind == DeviceKind::OpenCL) {
    auto details = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
    if (!details.is_object() || !details.value("fp64", false))
      throw UsageError("stencil: " + id + " has no double precision (cl_khr_fp64)");
  }
  (void)c;
}

}  // namespace

double task_bytes(int block, int width) {
  const double w = width, corners = width > 1 ? 8.0 * w * w : 0.0;
  return (2.0 * block * block + 8.0 * w * block + corners) * sizeof(double);
}

void validate(const RunConfig& c, bool needs_memory) {
  if (c.n <= 0) throw UsageError("stencil: --n must be positive (got " + std::to_string(c.n) + ")");
  if (c.block < 0)
    throw UsageError("stencil: --block must be positive (got " + std::to_string(c.block) + ")");
  if (c.sweeps <= 0)
    throw UsageError("stencil: --sweeps must be positive (got " + std::to_string(c.sweeps) + ")");
  if (c.repeat <= 0) throw UsageError("stencil: --repeat must be positive");
  // A simulated node's workers are its own.
  if (!simulated(c) && c.runtime.cpus == 0 && c.runtime.devices.empty())
    throw UsageError("stencil: no workers: --devices lists neither cpu nor a device");
  if (c.check && !touches_grids(c))
    throw UsageError("stencil: --check on a simulated platform needs --sim-run-kernels");
  StencilCodelet codelet(simulated(c));
  for (const auto& id : c.runtime.devices) validate_device(c, id, codelet);

  const int block = std::min(block_for(c), c.n);
  check_temporal_block(c.n, block, c.temporal_block);
  // A task whose own tiles exceed the device memory could never run: say so before starting.
  const double need = task_bytes(block, c.temporal_block);
  const auto limit = c.runtime.device_memory_limit;
  if (limit > 0 && static_cast<double>(limit) < need)
    throw UsageError("stencil: --device-memory " + std::to_string(limit) +
                     " bytes cannot hold the 2 tiles, 8 strips and corners of one task (" +
                     std::to_string(static_cast<long long>(need)) + " bytes at block " +
                     std::to_string(block) + "); give more or a smaller --block");

  if (!needs_memory || !touches_grids(c)) return;
  // The two grids, and the reference's two for the check.
  const double grid = static_cast<double>(c.n) * c.n * sizeof(double);
  common::require_host_memory("stencil", "n = " + std::to_string(c.n), grid * (c.check ? 4 : 2));
}

namespace {
// The sweeps' tasks, for the tile rule's models: one per tile and round, each an interior tile's
// (two tiles, four strips written and four read, the width of the temporal block, and with it
// the corners), at the codelet's six flops per cell and sweep (codelet.cpp).
common::TileWorkload workload(const RunConfig& c) {
  const int depth = std::max(c.temporal_block, 1);
  const int rounds = rounds_for(c.sweeps, depth);
  return [depth, rounds](int n, int b) {
    const double tiles = (n + b - 1) / b;
    const std::size_t tile = static_cast<std::size_t>(b) * b * sizeof(double);
    const std::size_t strip = static_cast<std::size_t>(b) * depth * sizeof(double);
    std::vector<std::size_t> buffers{tile, tile};
    buffers.insert(buffers.end(), 8, strip);
    if (depth > 1)
      buffers.insert(buffers.end(), 8, static_cast<std::size_t>(depth) * depth * sizeof(double));
    const double flops = 6.0 * depth * static_cast<double>(b) * b;
    return std::vector<common::TileTasks>{
        {kCodeletName, tiles * tiles * rounds, flops, std::move(buffers)}};
  };
}
}  // namespace

int block_for(const RunConfig& c) {
  if (c.block == 0 && !common::with_devices(c.runtime))  // CPU workers alone
    return common::sweep_block(c.n, common::cpu_workers(c.runtime));
  return common::block_for(c.n, c.block, c.runtime, workload(c));
}

RunResult run_stencil(const RunConfig& c) {
  validate(c);
  RunResult result;
  result.block = std::min(block_for(c), c.n);
  result.task_bytes = task_bytes(result.block, c.temporal_block);

  RuntimeOptions options = c.runtime;
  options.trace = !c.trace.empty();
  std::vector<TracePhase> phases;
  // The grids are declared before the runtime so that they outlive it, but allocated after it
  // started: the runtime rejects a bad scheduler before the memory is taken.
  std::optional<common::HostMatrix<double>> a, b;
  Runtime rt(options);
  auto now_us = [&rt] { return rt.seconds() * 1e6; };
  result.workers = rt.workers();
  const std::size_t cells = static_cast<std::size_t>(c.n) * c.n;
  a.emplace(cells, touches_grids(c));
  b.emplace(cells, touches_grids(c));
  // Once, untimed: tiles of pinned memory move at link speed (CUDA), pageable ones at a fraction.
  if (!simulated(c)) {
    rt.pin_host(a->data(), cells * sizeof(double));
    rt.pin_host(b->data(), cells * sizeof(double));
  }
  StencilCodelet codelet(simulated(c));

  // On a simulated platform too, as on the machine it stands for (docs/simulation.md).
  if (c.warmup) {
    tell(c.progress, "warm-up");
    // 3 x 3 tiles: every kind of tile (corner, edge, inner) on every worker kind, two rounds of
    // the run's temporal block (its kernels and scratch too).
    double start = now_us();
    const int depth = c.temporal_block;
    int wb = std::min(result.block, std::max(64, depth)), wn = 3 * wb;
    std::vector<double> wa(static_cast<std::size_t>(wn) * wn), wbuf(wa.size());
    fill_initial(wa.data(), wn);
    run_sweeps(rt, codelet, wa.data(), wbuf.data(), wn, wb, 2 * depth, c.coefficients, depth);
    phases.push_back({"warm-up (3 x 3 tiles, 2 sweeps; OpenCL program build; not timed)", start,
                      now_us(), false});
  }

  double* last = nullptr;
  for (int r = 0; r < c.repeat; ++r) {
    tell(c.progress, "timed runs", r, c.repeat);
    double start = now_us();
    if (touches_grids(c)) {
      fill_initial(a->data(), c.n);
      fill_initial(b->data(), c.n);  // first touch of b on every core too; each sweep overwrites it
      phases.push_back({"grid initialisation (not timed)", start, now_us(), false});
    }
    start = now_us();
    Sweeps s = run_sweeps(rt, codelet, a->data(), b->data(), c.n, result.block, c.sweeps,
                          c.coefficients, c.temporal_block, touches_grids(c));
    phases.push_back({"sweeps, run " + std::to_string(r + 1) + " (timed)", start, now_us(), true});
    result.times_s.push_back(s.time_s);
    if (r == 0 || s.time_s < result.best.time_s) result.best = s;
    last = s.result;
  }
  if (!c.trace.empty()) {
    rt.write_trace(c.trace);
    common::add_phases_to_trace(c.trace, "stencil", phases);
  }
  result.median_time_s = common::median(result.times_s);
  result.gbs = c.sweeps * sweep_bytes(c.n) / result.best.time_s / 1e9;

  if (c.check) {
    tell(c.progress, "check");
    auto reference = new_grid(c.n), scratch = new_grid(c.n);
    fill_initial(reference.get(), c.n);
    reference_sweeps(reference.get(), scratch.get(), c.n, c.sweeps, c.coefficients);
    Comparison cmp = compare_grids(last, reference.get(), c.n);
    result.checked = true;
    result.mismatches = cmp.mismatches;
    result.max_abs_diff = cmp.max_abs_diff;
  }
  return result;
}

}  // namespace conveyor::apps::stencil
