#pragma once
/// Tile Householder QR factorisation A = Q R on the Conveyor runtime (Buttari et al.; PLASMA),
/// written against the public API only, like apps/cholesky. Every step k submits geqrt on the
/// diagonal tile, gemqrt on the rest of its tile row, and for each tile below it tpqrt plus one
/// tpmqrt per tile of its row (qr_graph.hpp); the runtime infers the dependencies from accesses.
///
///   conveyor::Runtime rt;
///   QrCodelets codelets(Precision::Double);
///   std::vector<double> a(n * n);  GeneralMatrix(n).fill(a.data(), n);
///   TFactors<double> t(n, 256, 32);
///   auto f = factorize(rt, codelets, a.data(), n, n, 256, t);   // a: R above, reflectors below
///
/// CPU implementations through LAPACKE (without it they exist but throw); OpenCL and CUDA ones of
/// the same kernels (device_kernels.inc) where the build has those back ends.
#include <cstdint>
#include <string_view>

#include "common/matrix_home.hpp"
#include "common/precision.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"
#include "qr/t_factors.hpp"

namespace conveyor::apps::qr {

using common::MatrixHome;
using common::parse_precision;
using common::Precision;
using common::to_string;

/// The codelets' names, as the trace and the per-codelet statistics show them.
inline constexpr const char* kCodeletNames[] = {"geqrt", "gemqrt", "tpqrt", "tpmqrt"};

/// The four codelets for one precision, each with its CPU, OpenCL and CUDA implementations
/// (qr_device_codelets.hpp) and its flop count.
struct QrCodelets {
  explicit QrCodelets(Precision precision);
  Precision precision;
  Codelet geqrt, gemqrt, tpqrt, tpmqrt;
};

/// What one factorisation did.
struct Factorization {
  double time_s = 0;  ///< from the first submit until wait_all returned
  int tiles = 0;      ///< tile columns (tiles per side of a square matrix)
  int row_tiles = 0;  ///< tile rows (more than tiles when the matrix has more rows than columns)
  int domains = 1;    ///< domains of tile rows (qr_graph.hpp; 1: the flat tree)
  std::uint64_t geqrt_tasks = 0, gemqrt_tasks = 0, tpqrt_tasks = 0, tpmqrt_tasks = 0;
  std::uint64_t ttqrt_tasks = 0, ttmqrt_tasks = 0;  ///< the tree's, with several domains
  RuntimeStats stats;                               ///< this factorisation alone
  std::uint64_t total_tasks() const {
    return geqrt_tasks + gemqrt_tasks + tpqrt_tasks + tpmqrt_tasks + ttqrt_tasks + ttmqrt_tasks;
  }
};

/// Factorises the n x n column-major matrix at `a` (leading dimension `ld`) in place in tiles of
/// `block` (the last ones narrower when block does not divide n): R ends in the upper triangle,
/// the Householder vectors below it (tile by tile, as LAPACK's geqrt/tpqrt leave them), and their
/// triangular factors in `t`, which must have been made for this n and block (its ib is the inner
/// blocking). Every tile of `a` and `t` is registered with `rt` and unregistered before return.
/// Resets rt's statistics first. T must match codelets.precision. `backed` = false: a simulated
/// platform that runs no kernels, where the reflector copies V_k only need addresses. `home`:
/// where `a` lives, host memory (default) or one of rt's devices (each tile a strided device home
/// there: tasks on that device use it in place, and R and the reflectors are left there; `t` and
/// the V_k stay host data). Throws UsageError for a bad size or a home device rt does not have,
/// Error when a task fails.
template <typename T>
Factorization factorize(Runtime& rt, const QrCodelets& codelets, T* a, int n, long ld, int block,
                        TFactors<T>& t, bool backed = true, const MatrixHome& home = {});

/// The same for the m x n matrix (m >= n) that `t` was made for (TFactors(MatrixSize{m, n}, ...)),
/// in its tiles: mt x nt of them, the same task flow with rows nt .. mt - 1 below the last
/// diagonal tile (LAPACK's geqrf of a tall matrix: R n x n on top, the reflectors below it).
/// With t.domains() > 1 the tile rows are cut into that many domains, each eliminated into its own
/// top and the tops merged by a binary tree (qr_graph.hpp; the TT kernels of tree_codelets.hpp,
/// which run on CPU workers only): the shape for a tall matrix with few tile columns, whose flat
/// tree is one long chain of tpqrt (domains_for). Throws UsageError when ld < m.
template <typename T>
Factorization factorize(Runtime& rt, const QrCodelets& codelets, T* a, long ld, TFactors<T>& t,
                        bool backed = true, const MatrixHome& home = {});

/// Tasks of each kind for `tiles` tiles per side: geqrt t, gemqrt and tpqrt t(t-1)/2, tpmqrt
/// (t-1)t(2t-1)/6; for mt x nt tiles (mt >= nt) geqrt nt, gemqrt nt(nt-1)/2, tpqrt and tpmqrt the
/// sums over the steps k < nt of (mt-1-k) and (mt-1-k)(nt-1-k).
struct TaskCounts {
  std::uint64_t geqrt, gemqrt, tpqrt, tpmqrt;
  std::uint64_t total() const { return geqrt + gemqrt + tpqrt + tpmqrt; }
};
TaskCounts task_counts(int tiles);
TaskCounts task_counts(int row_tiles, int col_tiles);

}  // namespace conveyor::apps::qr
