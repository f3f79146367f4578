// The tile QR on the runtime: task counts and graph order, factorisations on CPU workers checked
// against the bounds (both precisions, ragged last tile, ib not dividing the block, ib larger than
// the last tile), R against a one-tile (whole-matrix LAPACK) factorisation, and a task skipped
// on purpose caught by the check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "common/blas_threads.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "qr/q_forming.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_graph.hpp"
#include "qr/qr_matrix.hpp"

namespace conveyor::apps::qr {
namespace {

#define SKIP_WITHOUT_LAPACKE() \
  if (!cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE"

TEST(QrTaskCounts, MatchTheGraph) {
  for (int nt : {1, 2, 3, 7}) {
    std::map<Kernel, std::uint64_t> seen;
    for_each_task(nt, [&](Kernel k, int, int, int, int) { ++seen[k]; });
    auto c = task_counts(nt);
    EXPECT_EQ(seen[Kernel::Geqrt], c.geqrt) << nt;
    EXPECT_EQ(seen[Kernel::Gemqrt], c.gemqrt) << nt;
    EXPECT_EQ(seen[Kernel::Tpqrt], c.tpqrt) << nt;
    EXPECT_EQ(seen[Kernel::Tpmqrt], c.tpmqrt) << nt;
  }
  auto c = task_counts(4);  // 4 + 6 + 6 + (9 + 4 + 1)
  EXPECT_EQ(c.total(), 30u);
}

TEST(QrTaskCounts, MatchTheGraphOfATallMatrix) {
  for (auto [mt, nt] : {std::pair{1, 1}, {3, 1}, {5, 2}, {7, 3}, {4, 4}}) {
    std::map<Kernel, std::uint64_t> seen;
    std::uint64_t below_last_row = 0;
    for_each_task(mt, nt, [&](Kernel k, int i, int j, int, int) {
      ++seen[k];
      below_last_row += i >= mt || j >= nt;
    });
    auto c = task_counts(mt, nt);
    EXPECT_EQ(seen[Kernel::Geqrt], c.geqrt) << mt << "x" << nt;
    EXPECT_EQ(seen[Kernel::Gemqrt], c.gemqrt) << mt << "x" << nt;
    EXPECT_EQ(seen[Kernel::Tpqrt], c.tpqrt) << mt << "x" << nt;
    EXPECT_EQ(seen[Kernel::Tpmqrt], c.tpmqrt) << mt << "x" << nt;
    EXPECT_EQ(below_last_row, 0u);
  }
  // 5 x 2 tiles: geqrt 2, gemqrt 1, tpqrt 4 + 3, tpmqrt 4 (step 0 only: column 1 has no right).
  auto c = task_counts(5, 2);
  EXPECT_EQ(c.tpqrt, 7u);
  EXPECT_EQ(c.tpmqrt, 4u);
  EXPECT_EQ(c.total(), 14u);
}

TEST(QrTaskCounts, ThePanelOutranksTheTrailingUpdates) {
  // Within step 0 of 4 tiles: tpqrt of column 0 above every update; the update of column 1 (the
  // next panel) above those of columns 2 and 3.
  std::map<std::pair<Kernel, int>, int> priority;  // (kernel, written column) -> priority
  for_each_task(4, [&](Kernel k, int, int j, int step, int p) {
    if (step == 0) priority[{k, k == Kernel::Tpqrt || k == Kernel::Geqrt ? 0 : j}] = p;
  });
  auto of = [&](Kernel k, int column) { return priority[std::make_pair(k, column)]; };
  EXPECT_GT(of(Kernel::Geqrt, 0), of(Kernel::Tpqrt, 0));
  EXPECT_GT(of(Kernel::Tpqrt, 0), of(Kernel::Gemqrt, 1));
  EXPECT_GT(of(Kernel::Tpmqrt, 1), of(Kernel::Gemqrt, 2));
}

// An m x n matrix (m = 0: n x n) factorised on `rt` with `domains` domains of tile rows and
// checked.
template <typename T>
void expect_checked_factorisation(Runtime& rt, int n, int block, int ib, int m = 0,
                                  int domains = 1) {
  m = std::max(m, n);
  SCOPED_TRACE(::testing::Message()
               << m << " x " << n << " block=" << block << " ib=" << ib << " domains=" << domains);
  GeneralMatrix matrix(m, n);
  std::vector<T> a(std::size_t(m) * n);
  matrix.fill(a.data(), m);
  TFactors<T> t(MatrixSize{m, n}, block, ib, domains);
  QrCodelets codelets(std::is_same_v<T, float> ? Precision::Single : Precision::Double);
  Factorization f = factorize(rt, codelets, a.data(), m, t);
  std::map<Kernel, std::uint64_t> graph;
  for_each_tree_task(t.row_tiles(), t.tiles(), domains,
                     [&](const Task& task) { ++graph[task.kernel]; });
  EXPECT_EQ(f.tiles, t.tiles());
  EXPECT_EQ(f.row_tiles, t.row_tiles());
  EXPECT_EQ(f.domains, domains);
  EXPECT_EQ(f.tpqrt_tasks, graph[Kernel::Tpqrt]);
  EXPECT_EQ(f.tpmqrt_tasks, graph[Kernel::Tpmqrt]);
  EXPECT_EQ(f.ttqrt_tasks, graph[Kernel::Ttqrt]);
  EXPECT_EQ(f.ttmqrt_tasks, graph[Kernel::Ttmqrt]);
  if (domains == 1) EXPECT_EQ(f.tpmqrt_tasks, task_counts(t.row_tiles(), t.tiles()).tpmqrt);
  if (domains > 1 && t.row_tiles() > 1) EXPECT_GT(f.ttqrt_tasks, 0u);
  EXPECT_EQ(f.stats.tasks, f.total_tasks());
  EXPECT_EQ(f.stats.total_copies(), 0u);  // CPU workers work in the user's memory
  QrCheck c = check_qr(matrix, a.data(), m, t);
  EXPECT_LE(c.residual, residual_bound<T>(m));
  EXPECT_LE(c.orthogonality, orthogonality_bound<T>(m));
  EXPECT_GT(c.residual, 0.0);
}

TEST(QrFactorize, CpuWorkersPassTheCheck) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  // (n, block, ib): square tiles; ragged last tile (130 = 2 x 48 + 34, and ib 40 > 34 there); ib
  // not dividing the block; ib = 1; one tile larger than the matrix.
  const int cases[][3] = {{128, 32, 8}, {130, 48, 40}, {150, 40, 12}, {64, 16, 1}, {50, 64, 16}};
  for (const auto& c : cases) {
    expect_checked_factorisation<double>(rt, c[0], c[1], c[2]);
    expect_checked_factorisation<float>(rt, c[0], c[1], c[2]);
  }
}

TEST(QrFactorize, TallMatricesPassTheCheck) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  // (m, n, block, ib): ragged last tile row and column (300 = 6 x 48 + 12, 130 = 2 x 48 + 34, ib
  // 40 > 34 there); one tile column; a diagonal tile taller than wide (rows 64..127 of column
  // 64..99); one column; one tile larger than the matrix.
  const int cases[][4] = {{300, 130, 48, 40},
                          {200, 64, 64, 16},
                          {257, 100, 64, 12},
                          {90, 1, 32, 8},
                          {100, 60, 128, 16}};
  for (const auto& c : cases) {
    expect_checked_factorisation<double>(rt, c[1], c[2], c[3], c[0]);
    expect_checked_factorisation<float>(rt, c[1], c[2], c[3], c[0]);
  }
}

// Domains of tile rows merged by a binary tree (TSQR-like, qr_graph.hpp) on one node: square and
// tall, ragged, more domains than the first steps have rows below them, and tiles taller than
// wide (128 x 64), whose TT kernels must read only the triangle at their top, not geqrt's
// reflectors below it.
TEST(QrFactorize, DomainsMergedByATreePassTheCheck) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  // (m, n, block, ib, domains)
  const int cases[][5] = {{256, 64, 128, 16, 2},  {1000, 130, 48, 40, 3}, {500, 500, 64, 16, 2},
                          {2000, 64, 128, 32, 4}, {300, 130, 48, 40, 2},  {150, 100, 64, 12, 4}};
  for (const auto& c : cases) {
    expect_checked_factorisation<double>(rt, c[1], c[2], c[3], c[0], c[4]);
    expect_checked_factorisation<float>(rt, c[1], c[2], c[3], c[0], c[4]);
  }
}

// The reduced Q is the complete Q's first n columns (to rounding: BLAS may block products of other
// widths differently), formed at the cost of those alone.
TEST(QrFactorize, TheReducedQIsTheCompleteQsFirstColumns) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  const int m = 150, n = 70;
  std::vector<double> a(std::size_t(m) * n);
  GeneralMatrix(m, n).fill(a.data(), m);
  TFactors<double> t(MatrixSize{m, n}, 32, 8);
  factorize(rt, QrCodelets(Precision::Double), a.data(), m, t);
  std::vector<double> complete = form_q(a.data(), m, t), reduced = form_q(a.data(), m, t, n);
  ASSERT_EQ(complete.size(), std::size_t(m) * m);
  ASSERT_EQ(reduced.size(), std::size_t(m) * n);
  std::size_t differ = 0;
  const double tol = 4 * m * common::unit_roundoff<double>();
  for (std::size_t e = 0; e < reduced.size(); ++e)
    differ += std::fabs(reduced[e] - complete[e]) > tol;
  EXPECT_EQ(differ, 0u);
  EXPECT_THROW(form_q(a.data(), m, t, n - 1), UsageError);
  EXPECT_THROW(form_q(a.data(), m, t, m + 1), UsageError);
}

// Q formed by tasks (q_forming.hpp), a chain per tile column of Q on the CPU workers, is the Q of
// the host's sequential form_q, reduced and complete, square and tall, ragged tiles, flat tree and
// domains merged by a tree.
TEST(QrFormQ, ByTasksEqualsTheHostsSequentialQ) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  const QFormingCodelets forming(Precision::Double);
  // (m, n, block, ib, domains)
  const int cases[][5] = {{150, 70, 32, 8, 1},  {300, 130, 48, 40, 1}, {64, 64, 16, 4, 1},
                          {90, 1, 32, 8, 1},    {256, 64, 128, 16, 2}, {1000, 130, 48, 40, 3},
                          {500, 200, 64, 16, 2}};
  for (const auto& c : cases) {
    const int m = c[0], n = c[1];
    SCOPED_TRACE(::testing::Message()
                 << m << " x " << n << " block " << c[2] << " domains " << c[4]);
    std::vector<double> a(std::size_t(m) * n);
    GeneralMatrix(m, n).fill(a.data(), m);
    TFactors<double> t(MatrixSize{m, n}, c[2], c[3], c[4]);
    factorize(rt, QrCodelets(Precision::Double), a.data(), m, t);
    for (int columns : {n, m}) {
      std::vector<double> by_tasks = form_q(rt, forming, a.data(), m, t, columns);
      std::vector<double> on_host = form_q(a.data(), m, t, columns);
      ASSERT_EQ(by_tasks.size(), on_host.size());
      std::size_t differ = 0;
      for (std::size_t e = 0; e < on_host.size(); ++e)
        differ += std::fabs(by_tasks[e] - on_host[e]) > 4 * m * common::unit_roundoff<double>();
      EXPECT_EQ(differ, 0u) << columns << " columns";
    }
  }
  std::vector<double> a(64 * 64);
  TFactors<double> t(64, 16, 4);
  EXPECT_THROW(form_q(rt, forming, a.data(), 64, t, 63), UsageError);
  EXPECT_THROW(form_q(rt, forming, a.data(), 64, t, 65), UsageError);
  std::vector<float> af(64 * 64);
  TFactors<float> tf(64, 16, 4);
  EXPECT_THROW(form_q(rt, forming, af.data(), 64, tf, 64), UsageError);  // double codelets
}

// R is unique up to the signs of its rows: the tiles' R against LAPACK's geqrt on the whole
// matrix (one tile, the blocked Householder QR of geqrf).
template <typename T>
void expect_r_matches_whole_matrix_qr(Runtime& rt, int n, int block, int ib) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " block=" << block);
  GeneralMatrix matrix(n);
  std::vector<T> tiled(std::size_t(n) * n), whole(tiled.size());
  matrix.fill(tiled.data(), n);
  matrix.fill(whole.data(), n);
  QrCodelets codelets(std::is_same_v<T, float> ? Precision::Single : Precision::Double);
  TFactors<T> t(n, block, ib);
  factorize(rt, codelets, tiled.data(), n, n, block, t);
  TFactors<T> t1(n, n, ib);
  cpu_geqrt<T>(n, n, ib, whole.data(), n, t1.tile(0, 0), static_cast<int>(t1.ld()));
  // R's entries are O(sqrt(n)); a random matrix of this order has a modest condition number.
  const double tol = 1e3 * n * common::unit_roundoff<T>();
  std::size_t wrong = 0;
  for (int i = 0; i < n; ++i) {
    auto at = [&](int r, int c) { return std::size_t(r) + std::size_t(c) * n; };
    double sign = (tiled[at(i, i)] < 0) == (whole[at(i, i)] < 0) ? 1.0 : -1.0;
    for (int j = i; j < n; ++j) wrong += std::fabs(sign * tiled[at(i, j)] - whole[at(i, j)]) > tol;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(QrFactorize, RMatchesTheWholeMatrixQrUpToRowSigns) {
  SKIP_WITHOUT_LAPACKE();
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  expect_r_matches_whole_matrix_qr<double>(rt, 100, 24, 8);
  expect_r_matches_whole_matrix_qr<float>(rt, 100, 24, 8);
}

// The graph run by hand in program order, one task left out: the check must see it.
// The factorisation with `domains` domains of tile rows (qr_graph.hpp; 1: the flat tree), run
// sequentially in program order on the host with the tasks' kernels, skipping the one task named
// (skip_kernel at i, j, k; none when i < 0), then checked.
template <typename T>
QrCheck check_with_a_skipped_task(int n, int block, int ib, int domains, Kernel skip_kernel, int si,
                                  int sj, int sk) {
  GeneralMatrix matrix(n);
  std::vector<T> a(std::size_t(n) * n);
  matrix.fill(a.data(), n);
  TFactors<T> t(n, block, ib, domains);
  auto tile = [&](int i, int j) { return a.data() + i * block + std::size_t(j) * block * n; };
  for_each_tree_task(t.tiles(), domains, [&](const Task& task) {
    const int i = task.i, j = task.j, k = task.k, h = task.top;
    if (task.kernel == skip_kernel && i == si && j == sj && k == sk) return;
    const int wk = t.width(k), wi = t.width(i), ibk = t.ib(k), ldt = static_cast<int>(t.ld());
    // gemqrt reads A_hk itself here (the tasks read a copy): nothing rewrites R in between.
    switch (task.kernel) {
      case Kernel::Geqrt:
        cpu_geqrt<T>(wi, wk, t.rows(i, k), tile(i, k), n, t.tile(i, k), ldt);
        break;
      case Kernel::Gemqrt:
        cpu_gemqrt<T>(true, t.width(h), t.width(j), std::min(t.width(h), wk), t.rows(h, k),
                      tile(h, k), n, t.tile(h, k), ldt, tile(h, j), n);
        break;
      case Kernel::Tpqrt:
        cpu_tpqrt<T>(wi, wk, ibk, tile(h, k), n, tile(i, k), n, t.tile(i, k), ldt);
        break;
      case Kernel::Tpmqrt:
        cpu_tpmqrt<T>(true, wi, t.width(j), wk, ibk, tile(i, k), n, t.tile(i, k), ldt, tile(h, j),
                      n, tile(i, j), n);
        break;
      case Kernel::Ttqrt:
        cpu_ttqrt<T>(wi, wk, ibk, tile(h, k), n, tile(i, k), n, t.tree_tile(i, k), ldt);
        break;
      case Kernel::Ttmqrt:
        cpu_ttmqrt<T>(true, wi, t.width(j), wk, ibk, tile(i, k), n, t.tree_tile(i, k), ldt,
                      tile(h, j), n, tile(i, j), n);
        break;
    }
  });
  return check_qr(matrix, a.data(), n, t);
}

TEST(QrCheck, SeesASkippedTaskAndPassesTheFullGraph) {
  SKIP_WITHOUT_LAPACKE();
  // Sequentially in program order (gemqrt may read A_kk itself there: nothing rewrites R between).
  QrCheck full = check_with_a_skipped_task<double>(96, 32, 8, 1, Kernel::Geqrt, -1, -1, -1);
  EXPECT_LE(full.residual, residual_bound<double>(96));
  EXPECT_LE(full.orthogonality, orthogonality_bound<double>(96));
  // The last update of the last tile, in single precision, where the bound is widest.
  QrCheck last = check_with_a_skipped_task<float>(96, 32, 8, 1, Kernel::Tpmqrt, 2, 2, 1);
  EXPECT_GT(last.residual, residual_bound<float>(96));
  QrCheck row = check_with_a_skipped_task<double>(96, 32, 8, 1, Kernel::Gemqrt, 0, 2, 0);
  EXPECT_GT(row.residual, residual_bound<double>(96));
}

TEST(QrTree, DomainsMergedByATreePassTheCheckAndASkippedTreeTaskFails) {
  SKIP_WITHOUT_LAPACKE();
  // 2, 3 (not a power of two) and 4 domains; n = 230 in tiles of 32 leaves a 6-row last tile
  // (below ib = 8: its geqrt as a domain top has 6 reflectors), and ib = 12 does not divide 32.
  for (int domains : {2, 3, 4})
    for (int ib : {8, 12}) {
      SCOPED_TRACE(::testing::Message() << "domains=" << domains << " ib=" << ib);
      QrCheck d =
          check_with_a_skipped_task<double>(230, 32, ib, domains, Kernel::Geqrt, -1, -1, -1);
      EXPECT_LE(d.residual, residual_bound<double>(230));
      EXPECT_LE(d.orthogonality, orthogonality_bound<double>(230));
      QrCheck s = check_with_a_skipped_task<float>(230, 32, ib, domains, Kernel::Geqrt, -1, -1, -1);
      EXPECT_LE(s.residual, residual_bound<float>(230));
      EXPECT_LE(s.orthogonality, orthogonality_bound<float>(230));
    }
  // The merge of rows 1 into 0 at step 0, and one of its updates: each breaks the factorisation.
  QrCheck merge = check_with_a_skipped_task<double>(128, 32, 8, 2, Kernel::Ttqrt, 1, 0, 0);
  EXPECT_GT(merge.orthogonality + merge.residual, residual_bound<double>(128));
  QrCheck update = check_with_a_skipped_task<double>(128, 32, 8, 2, Kernel::Ttmqrt, 1, 3, 0);
  EXPECT_GT(update.residual, residual_bound<double>(128));
}

TEST(QrTree, EveryColumnIsReducedOnceIntoItsDiagonalTile) {
  // For each step k, every row i > k is eliminated exactly once (by tpqrt into its domain's top or
  // by ttqrt into another top), the tops are rows k .. k + domains - 1, and the tree's root is k.
  for (int domains : {1, 2, 3, 4})
    for (int nt : {1, 2, 5, 9}) {
      std::map<std::pair<int, int>, int> eliminated;  // (i, k) -> times
      std::map<int, int> geqrts;                      // k -> count
      for_each_tree_task(nt, domains, [&](const Task& t) {
        if (t.kernel == Kernel::Tpqrt || t.kernel == Kernel::Ttqrt) {
          ++eliminated[{t.i, t.k}];
          EXPECT_LT(t.top, t.i);
          if (t.kernel == Kernel::Tpqrt) EXPECT_EQ((t.i - t.top) % domains, 0);
        }
        if (t.kernel == Kernel::Geqrt) {
          ++geqrts[t.k];
          EXPECT_LT(t.i - t.k, domains);
          EXPECT_EQ(t.i, t.top);
        }
      });
      for (int k = 0; k < nt; ++k) {
        EXPECT_EQ(geqrts[k], std::min(domains, nt - k)) << nt << " " << domains;
        for (int i = k + 1; i < nt; ++i) EXPECT_EQ((eliminated[{i, k}]), 1) << i << "," << k;
        EXPECT_EQ((eliminated[{k, k}]), 0);
      }
    }
}

TEST(QrFactorize, RejectsBadSizesAndMismatchedInputs) {
  RuntimeOptions options;
  options.cpus = 1;
  Runtime rt(options);
  std::vector<double> a(64, 1.0);
  QrCodelets d(Precision::Double), s(Precision::Single);
  TFactors<double> t(8, 4, 2);
  EXPECT_THROW(factorize(rt, d, a.data(), 8, 8, 0, t), UsageError);
  EXPECT_THROW(factorize(rt, d, a.data(), 0, 8, 4, t), UsageError);
  EXPECT_THROW(factorize(rt, s, a.data(), 8, 8, 4, t), UsageError);
  EXPECT_THROW(factorize(rt, d, a.data(), 8, 8, 2, t), UsageError);  // t made for block 4
  EXPECT_THROW(GeneralMatrix(0), UsageError);
  EXPECT_THROW(GeneralMatrix(8, 0), UsageError);
  TFactors<double> wide(MatrixSize{6, 8}, 4, 2);  // fewer rows than columns
  EXPECT_THROW(factorize(rt, d, a.data(), 8, wide), UsageError);
  TFactors<double> tall(MatrixSize{16, 4}, 4, 2);
  EXPECT_THROW(factorize(rt, d, a.data(), 8, tall), UsageError);          // ld 8 < 16 rows
  EXPECT_THROW(factorize(rt, d, a.data(), 16, 16, 4, tall), UsageError);  // not 16 x 16
}

TEST(QrFlops, AreFourThirdsNCubedOrTwoMNSquaredLessTwoThirdsNCubed) {
  EXPECT_DOUBLE_EQ(qr_flops(300), 36e6);
  EXPECT_DOUBLE_EQ(qr_flops(300, 300), 36e6);
  EXPECT_DOUBLE_EQ(qr_flops(3000, 30), 2.0 * 3000 * 900 - 18000);
}

TEST(TFactors, PackTheLowerTriangleOfTiles) {
  TFactors<float> t(100, 32, 8);  // 4 tile columns, the last 4 wide
  EXPECT_EQ(t.tiles(), 4);
  EXPECT_EQ(t.width(3), 4);
  EXPECT_EQ(t.ib(3), 4);
  EXPECT_EQ(t.ib(0), 8);
  EXPECT_EQ(t.tile(1, 0) - t.tile(0, 0), 8 * 32);
  EXPECT_EQ(t.tile(1, 1) - t.tile(3, 0), 8 * 32);  // column 1 follows column 0's 4 tiles
  EXPECT_EQ(t.tile(3, 3) - t.tile(0, 0), 9 * 8 * 32);
}

TEST(TFactors, PackTheTilesOnAndBelowTheDiagonalOfATallMatrix) {
  TFactors<double> t(MatrixSize{100, 40}, 32,
                     8);  // 4 x 2 tiles: heights 32 x 3 and 4, widths 32, 8
  EXPECT_EQ(t.m(), 100);
  EXPECT_EQ(t.row_tiles(), 4);
  EXPECT_EQ(t.tiles(), 2);
  EXPECT_EQ(t.height(3), 4);
  EXPECT_EQ(t.width(1), 8);
  EXPECT_EQ(t.ib(1), 8);
  EXPECT_EQ(t.rows(1, 1), 8);
  EXPECT_EQ(t.tile(1, 1) - t.tile(3, 0), 8 * 32);  // column 1 (rows 1..3) follows column 0's 4
  EXPECT_EQ(t.tile(3, 1) - t.tile(0, 0), 6 * 8 * 32);
}

}  // namespace
}  // namespace conveyor::apps::qr
