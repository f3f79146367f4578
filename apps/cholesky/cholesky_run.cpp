#include "cholesky/cholesky_run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/blas_threads.hpp"
#include "common/block_size.hpp"
#include "common/median.hpp"
#include "common/memory_check.hpp"
#include "common/trace_phases.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

using common::add_phases_to_trace;
using common::TracePhase;

std::size_t element_bytes(Precision p) { return p == Precision::Single ? 4 : 8; }

// Whether the configuration lists a device of `kind`.
bool has_device_of_kind(const RunConfig& c, DeviceKind kind) {
  for (const auto& id : c.runtime.devices)
    if (find_device(id)->info().kind == kind) return true;
  return false;
}

bool simulated(const RunConfig& c) { return !c.runtime.platform.empty(); }
// Whether the run touches the matrix: a real run, or a simulated one that runs the kernels.
bool touches_matrix(const RunConfig& c) { return !simulated(c) || c.runtime.platform_run_kernels; }

template <typename T>
RunResult run_typed(const RunConfig& c) {
  RunResult result;
  result.block = block_for(c);
  result.cpu_kernels = cpu_kernel_library();
  // One BLAS thread per task: the runtime already runs one task per core.
  common::use_single_threaded_blas();

  // Declared before the runtime so that it outlives it (the runtime writes back into it at the
  // end), but allocated after: the runtime rejects a bad scheduler before the memory is taken.
  std::unique_ptr<common::HostMatrix<T>> a;
  RuntimeOptions options = c.runtime;
  options.trace = !c.trace.empty();
  std::vector<TracePhase> phases;
  Runtime rt(options);
  // The trace's clock: microseconds since the runtime started.
  auto now_us = [&rt] { return rt.seconds() * 1e6; };
  result.workers = rt.workers();

  // The generator precomputes O(n^2) row sums: only for a matrix that is filled.
  std::unique_ptr<SpdMatrix> spd;
  if (touches_matrix(c)) spd = std::make_unique<SpdMatrix>(c.n);
  a = std::make_unique<common::HostMatrix<T>>(
      static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n), touches_matrix(c));
  // Once, untimed: tiles of pinned memory move at link speed (CUDA), pageable ones at a fraction.
  if (!simulated(c)) rt.pin_host(a->data(), static_cast<std::size_t>(c.n) * c.n * sizeof(T));
  CholeskyCodelets codelets(c.precision, simulated(c));

  // On a simulated platform too, as on the machine it stands for (docs/simulation.md).
  if (c.warmup) {
    tell(c.progress, "warm-up");
    // Three tiles per side is the smallest matrix with a task of every kind.
    double start = now_us();
    int wb = std::min(result.block, 64);
    int wn = 3 * wb;
    SpdMatrix small(wn);
    std::vector<T> w(static_cast<std::size_t>(wn) * wn);
    small.fill(w.data(), wn);
    factorize(rt, codelets, w.data(), wn, wn, wb);
    phases.push_back(
        {"warm-up (3 x 3 tiles, first use of each device: OpenCL program build, CUDA "
         "handles; not timed)",
         start, now_us(), false});
  }

  for (int r = 0; r < c.repeat; ++r) {
    tell(c.progress, "factorisations", r, c.repeat);
    double start = now_us();
    if (spd) {
      spd->fill(a->data(), c.n);
      phases.push_back({"matrix generation (not timed)", start, now_us(), false});
    }
    start = now_us();
    Factorization f = factorize(rt, codelets, a->data(), c.n, c.n, result.block);
    phases.push_back(
        {"factorisation " + std::to_string(r + 1) + " (timed)", start, now_us(), true});
    result.times_s.push_back(f.time_s);
    if (r == 0 || f.time_s < result.best.time_s) result.best = f;
  }
  if (!c.trace.empty()) {
    rt.write_trace(c.trace);
    add_phases_to_trace(c.trace, "cholesky", phases);
  }

  result.median_time_s = common::median(result.times_s);
  result.gflops = cholesky_flops(c.n) / result.best.time_s / 1e9;
  result.residual_bound = residual_bound<T>(c.n);
  if (c.check) {
    tell(c.progress, "check");
    result.checked = true;
    result.residual = cholesky_residual(*spd, a->data(), c.n);
  }
  return result;
}

}  // namespace

void validate(const RunConfig& c) {
  if (c.n <= 0)
    throw UsageError("cholesky: --n must be positive (got " + std::to_string(c.n) + ")");
  if (c.block < 0)
    throw UsageError("cholesky: --block must be positive (got " + std::to_string(c.block) + ")");
  if (c.repeat <= 0) throw UsageError("cholesky: --repeat must be positive");
  for (const auto& name : c.runtime.offload)
    if (!is_codelet_name(name))
      throw UsageError("cholesky: unknown codelet '" + name +
                       "' in --offload (codelets: potrf, trsm, syrk, gemm)");
  if (simulated(c)) {
    if (!c.runtime.devices.empty())
      throw UsageError("cholesky: --platform brings its own devices; leave out --devices");
    if (c.check && !c.runtime.platform_run_kernels)
      throw UsageError("cholesky: --check on a simulated platform needs --sim-run-kernels");
  } else if (c.runtime.cpus == 0 && c.runtime.devices.empty()) {
    throw UsageError("cholesky: no workers: --devices lists neither cpu nor a device");
  }

  CholeskyCodelets codelets(c.precision);
  for (const auto& id : c.runtime.devices) {
    auto device = find_device(id);  // UsageError naming the devices that exist
    const DeviceInfo& info = device->info();
    if (info.kind == DeviceKind::Cpu)
      throw UsageError("cholesky: '" + id + "' is the host; name it as 'cpu' in --devices");
    bool any = false;
    for (const char* name : kCodeletNames) any = any || codelets.find(name)->has(info.kind);
    if (!any)
      throw UsageError("cholesky: no codelet has an implementation for " + id +
                       " (this build lacks its kernels)");
    if (info.kind == DeviceKind::OpenCL) {
      auto details = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
      if (!details.is_object()) details = nlohmann::json::object();
      if (c.precision == Precision::Double && !details.value("fp64", false))
        throw UsageError("cholesky: " + id +
                         " has no double precision (cl_khr_fp64); use --precision s");
      auto max_group = details.value("max_work_group_size", std::size_t{0});
      if (max_group != 0 && max_group < static_cast<std::size_t>(kOpenclGemmGroupSize))
        throw UsageError("cholesky: " + id + " allows work-groups of " + std::to_string(max_group) +
                         " work-items; the OpenCL gemm needs " +
                         std::to_string(kOpenclGemmGroupSize));
    }
  }
  // Every offloaded codelet must be runnable on one of the devices, else "offload" cannot place it.
  for (const auto& name : c.runtime.offload) {
    const Codelet* codelet = codelets.find(name);
    bool placeable = false;
    for (DeviceKind kind : {DeviceKind::OpenCL, DeviceKind::Cuda})
      placeable = placeable || (codelet->has(kind) && has_device_of_kind(c, kind));
    if (!placeable && !c.runtime.devices.empty())
      throw UsageError("cholesky: --offload " + name +
                       ": no listed device has an implementation of it (OpenCL has gemm only; CUDA "
                       "has all four)");
  }
  if (c.runtime.cpus == 0 && !simulated(c))
    for (const char* name : kCodeletNames) {
      bool runnable = false;
      for (const auto& id : c.runtime.devices)
        runnable = runnable || codelets.find(name)->has(find_device(id)->info().kind);
      if (!runnable)
        throw UsageError(std::string("cholesky: without cpu in --devices, nothing can run ") +
                         name + " (add cpu, or a CUDA device)");
    }

  if (!touches_matrix(c)) return;  // no memory needed (HostMatrix reserves addresses only)
  double bytes = static_cast<double>(c.n) * c.n * static_cast<double>(element_bytes(c.precision));
  // The check keeps a double-precision copy of L.
  double need = bytes + (c.check ? static_cast<double>(c.n) * c.n * sizeof(double) : 0.0);
  common::require_host_memory("cholesky", "n = " + std::to_string(c.n), need);
}

namespace {
// The factorisation's tasks by kind, for the tile rule's models.
common::TileWorkload workload(Precision precision) {
  return [precision](int n, int b) {
    const int tiles = (n + b - 1) / b;
    const TaskCounts count = task_counts(tiles);
    const double b3 = static_cast<double>(b) * b * b;
    const std::size_t tile = static_cast<std::size_t>(b) * b * element_bytes(precision);
    // The flops of the codelets' cost functions (cholesky.cpp) on square tiles.
    return std::vector<common::TileTasks>{
        {"potrf", static_cast<double>(count.potrf), b3 / 3, {tile}},
        {"trsm", static_cast<double>(count.trsm), b3, {tile, tile}},
        {"syrk", static_cast<double>(count.syrk), b3, {tile, tile}},
        {"gemm", static_cast<double>(count.gemm), 2 * b3, {tile, tile, tile}}};
  };
}
}  // namespace

int block_for(const RunConfig& c) {
  return common::block_for(c.n, c.block, c.runtime, workload(c.precision));
}

RunResult run_cholesky(const RunConfig& config) {
  validate(config);
  return config.precision == Precision::Single ? run_typed<float>(config)
                                               : run_typed<double>(config);
}

}  // namespace conveyor::apps::cholesky
