#pragma once
/// One configuration of the QR application from start to finish, as `conveyor qr` runs it:
/// validate, generate the matrix, start a runtime, warm up, factorise `repeat` times, check.
///
///   RunConfig c;  c.n = 4096;  c.block = 512;  c.check = true;
///   RunResult r = run_qr(c);   // r.gflops, r.check.residual, r.passed()
#include <string>
#include <vector>

#include "conveyor/progress.hpp"
#include "conveyor/runtime.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"

namespace conveyor::apps::qr {

struct RunConfig {
  int n = 4096;     ///< columns (the order of a square matrix)
  int m = 0;        ///< rows, m >= n; 0: n (square)
  int block = 0;    ///< tile size; 0: block_for (the tile rule, block_size.hpp)
  int ib = 0;       ///< inner blocking; 0: inner_block (below)
  int domains = 0;  ///< domains of tile rows (qr_graph.hpp); 0: domains_for
  Precision precision = Precision::Double;
  /// CPU workers, devices (OpenCL, CUDA), scheduler, pinning, device memory, or a simulated
  /// platform (`platform`; runs no kernels unless `platform_run_kernels`). Validated first.
  RuntimeOptions runtime;
  int repeat = 1;       ///< factorisations timed; the fastest one is reported
  bool warmup = true;   ///< factorise a 3 x 3-tile matrix first (first-touch, BLAS start-up)
  bool check = false;   ///< residual and orthogonality after the last factorisation
  std::string trace;    ///< write the runtime's Chrome trace here (empty: none)
  ProgressFn progress;  ///< hears of the warm-up, each timed run and the check (may be empty)
  int rows() const { return m > 0 ? m : n; }
};

struct RunResult {
  int block = 0;  ///< the tile size used
  int ib = 0;     ///< the inner blocking used
  Factorization best;
  std::vector<double> times_s;
  double median_time_s = 0;
  double gflops = 0;  ///< 2 m n^2 - 2/3 n^3 (4/3 n^3 when square) / best time, in 1e9 flop/s
  bool checked = false;
  QrCheck check;
  double residual_bound = 0, orthogonality_bound = 0;
  std::vector<std::string> workers;
  std::string cpu_kernels;
  bool passed() const {
    return !checked ||
           (check.residual <= residual_bound && check.orthogonality <= orthogonality_bound);
  }
};

/// Throws UsageError for a bad configuration (before allocating anything), Error for a failure.
/// A check above its bound is not thrown here: see RunResult::passed.
RunResult run_qr(const RunConfig& config);

/// The checks run_qr does first, on their own. `needs_memory` = false leaves out the host-memory
/// check (a simulated cluster that runs no kernels holds no matrix; a simulated node that runs none
/// leaves it out by itself).
void validate(const RunConfig& config, bool needs_memory = true);

/// config.domains, or when it is 0: the flat tree (1) where its trailing updates keep the CPU
/// workers busy (nt^2 >= 2p for nt tile columns and p CPU workers), or where there is a device or
/// a simulated platform (the tree's TT kernels run on CPU workers only); else one domain per CPU
/// worker, at most one per two tile rows: a tall matrix with few tile columns, whose flat tree is
/// one long chain of tpqrt. `block`: the tile size used.
int domains_for(const RunConfig& config, int block);

/// config.ib taken as the block when larger, or when it is 0 the default of inner_block_for
/// (t_factors.hpp) for the config's workers. `block`: the tile size used.
int inner_block(const RunConfig& config, int block);

/// config.block, or when it is 0 the shared tile rule (common::block_for with the factorisation's
/// tasks): with devices under a model scheduler, the tile the performance models say suits the
/// fastest devices; else by worker count (docs/qr.md, "Tile size"). A tall matrix on CPU workers
/// alone gets the tile of a square one of sqrt(m n) per side, at most 2n (rounded up to the
/// granule).
int block_for(const RunConfig& config);

}  // namespace conveyor::apps::qr
