#pragma once
/// One configuration of the Cholesky application from start to finish, as `conveyor cholesky`
/// runs it: validate, generate the matrix, start a runtime, warm up, factorise `repeat` times,
/// check the residual.
///
///   RunConfig c;  c.n = 4096;  c.block = 512;  c.precision = Precision::Double;
///   c.runtime.devices = {"opencl:0"};  c.runtime.scheduler = "offload";  c.runtime.offload =
///   {"gemm"}; c.check = true; RunResult r = run_cholesky(c);   // r.gflops,
///   r.best.stats.h2d_copies, r.residual
#include <string>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "conveyor/progress.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::apps::cholesky {

struct RunConfig {
  int n = 8192;
  int block = 0;  ///< tile size; 0: default_block(n, workers) (block_size.hpp)
  Precision precision = Precision::Double;
  /// Devices, CPU count, scheduler, offload list, coherence. Validated here before the runtime
  /// starts (unknown device, unknown codelet in offload, double precision on a device without it).
  RuntimeOptions runtime;
  int repeat = 1;  ///< factorisations timed; the fastest one is reported
  bool warmup =
      true;  ///< factorise a 3 x 3-tile matrix first (builds OpenCL programs, creates handles)
  bool check = false;   ///< compute ||A - L L^T||_F / ||A||_F after the last factorisation
  std::string trace;    ///< write the runtime's Chrome trace here (empty: none)
  ProgressFn progress;  ///< hears of the warm-up, each timed run and the check (may be empty)
};

struct RunResult {
  int block = 0;                ///< the tile size used (the one chosen when config.block was 0)
  Factorization best;           ///< the fastest factorisation (its copies and task counts)
  std::vector<double> times_s;  ///< every timed factorisation, in order
  double median_time_s = 0;
  double gflops = 0;  ///< n^3/3 / best time, in 1e9 flop/s
  bool checked = false;
  double residual = 0;        ///< when checked
  double residual_bound = 0;  ///< the largest residual accepted for this n and precision
  std::vector<std::string> workers;
  std::string cpu_kernels;  ///< cpu_kernel_library()
  bool passed() const { return !checked || residual <= residual_bound; }
};

/// Throws UsageError for a bad configuration (before allocating anything), Error for a failure.
/// A residual above the bound is not thrown here: see RunResult::passed.
RunResult run_cholesky(const RunConfig& config);

/// The checks run_cholesky does first, on their own.
void validate(const RunConfig& config);

/// config.block, or the default for its n and workers (CPU workers, one per core when
/// runtime.cpus is -1, plus one per device) when it is 0.
int block_for(const RunConfig& config);

}  // namespace conveyor::apps::cholesky
