#include "qr/run.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "common/blas_threads.hpp"
#include "common/block_size.hpp"
#include "common/host_memory.hpp"
#include "common/median.hpp"
#include "common/trace_phases.hpp"
#include "conveyor/error.hpp"
#include "qr/cpu_kernels.hpp"
#include "qr/matrix.hpp"

namespace conveyor::apps::qr {
namespace {

using common::TracePhase;

template <typename T>
RunResult run_typed(const RunConfig& c) {
  RunResult result;
  result.block = block_for(c);
  result.ib = std::min(c.ib, result.block);
  result.cpu_kernels = cpu_kernel_library();
  // One BLAS thread per task: the runtime already runs one task per core.
  common::use_single_threaded_blas();

  RuntimeOptions options = c.runtime;
  options.trace = !c.trace.empty();
  std::vector<TracePhase> phases;
  // The matrix and its T factors are declared before the runtime so that they outlive it, but
  // allocated after it started: the runtime rejects a bad scheduler before the memory is taken.
  const GeneralMatrix matrix(c.n);
  std::vector<T> a;
  std::optional<TFactors<T>> factors;
  Runtime rt(options);
  a.resize(static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n));
  TFactors<T>& t = factors.emplace(c.n, result.block, result.ib);
  auto now_us = [&rt] { return rt.seconds() * 1e6; };
  result.workers = rt.workers();
  QrCodelets codelets(c.precision);

  if (c.warmup) {
    // Three tiles per side is the smallest matrix with a task of every kind and a tpmqrt chain.
    double start = now_us();
    int wb = std::min(result.block, 64), wn = 3 * wb;
    std::vector<T> w(static_cast<std::size_t>(wn) * wn);
    GeneralMatrix(wn).fill(w.data(), wn);
    TFactors<T> wt(wn, wb, std::min(result.ib, wb));
    factorize(rt, codelets, w.data(), wn, wn, wb, wt);
    phases.push_back({"warm-up (3 x 3 tiles; not timed)", start, now_us(), false});
  }

  for (int r = 0; r < c.repeat; ++r) {
    double start = now_us();
    matrix.fill(a.data(), c.n);
    phases.push_back({"matrix generation (not timed)", start, now_us(), false});
    start = now_us();
    Factorization f = factorize(rt, codelets, a.data(), c.n, c.n, result.block, t);
    phases.push_back(
        {"factorisation " + std::to_string(r + 1) + " (timed)", start, now_us(), true});
    result.times_s.push_back(f.time_s);
    if (r == 0 || f.time_s < result.best.time_s) result.best = f;
  }
  if (!c.trace.empty()) {
    rt.write_trace(c.trace);
    common::add_phases_to_trace(c.trace, "qr", phases);
  }

  result.median_time_s = common::median(result.times_s);
  result.gflops = qr_flops(c.n) / result.best.time_s / 1e9;
  result.residual_bound = residual_bound<T>(c.n);
  result.orthogonality_bound = orthogonality_bound<T>(c.n);
  if (c.check) {
    result.checked = true;
    result.check = check_qr(matrix, a.data(), c.n, t);
  }
  return result;
}

}  // namespace

void validate(const RunConfig& c, bool needs_memory) {
  if (c.n <= 0) throw UsageError("qr: --n must be positive (got " + std::to_string(c.n) + ")");
  if (c.block < 0)
    throw UsageError("qr: --block must be positive (got " + std::to_string(c.block) + ")");
  if (c.ib <= 0) throw UsageError("qr: --ib must be positive (got " + std::to_string(c.ib) + ")");
  if (c.repeat <= 0) throw UsageError("qr: --repeat must be positive");
  if (!c.runtime.devices.empty() || !c.runtime.platform.empty())
    throw UsageError(
        "qr: only CPU workers for now (--devices cpu); GPU/OpenCL kernels and simulated platforms "
        "come later");
  if (c.runtime.cpus == 0) throw UsageError("qr: no workers (--cpus must be positive)");
  if (!cpu_kernels_available())
    throw UsageError(
        "qr: needs LAPACKE (geqrt/tpqrt/...), which was not found when Conveyor was configured; "
        "install OpenBLAS + LAPACKE (scripts/setup-deps.sh) and reconfigure");

  if (!needs_memory) return;
  // The matrix, Q and two double matrices for the check.
  double elements = static_cast<double>(c.n) * c.n;
  double element_bytes = c.precision == Precision::Single ? 4 : 8;
  double need =
      elements * element_bytes + (c.check ? elements * (element_bytes + 2 * sizeof(double)) : 0.0);
  common::require_host_memory("qr", c.n, need);
}

int block_for(const RunConfig& c) { return common::block_for(c.n, c.block, c.runtime); }

RunResult run_qr(const RunConfig& config) {
  validate(config);
  return config.precision == Precision::Single ? run_typed<float>(config)
                                               : run_typed<double>(config);
}

}  // namespace conveyor::apps::qr
