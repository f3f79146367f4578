// The Cholesky task graph on the runtime: task counts, results against a whole-matrix reference on
// CPU workers (both precisions, ragged tiles), and the seed's copy counts (table 3) with gemm
// offloaded to a device: exactly 960 H2D + 465 D2H with coherence, 14880 + 4960 without.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "common/blas_threads.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::cholesky {
namespace {

TEST(CholeskyTaskCounts, MatchTheSeed) {
  auto c = task_counts(32);  // seed 003: 32 x 32 tiles, 5984 tasks, 4960 gemm
  EXPECT_EQ(c.potrf, 32u);
  EXPECT_EQ(c.trsm, 496u);
  EXPECT_EQ(c.syrk, 496u);
  EXPECT_EQ(c.gemm, 4960u);
  EXPECT_EQ(c.potrf + c.trsm + c.syrk + c.gemm, 5984u);
  auto one = task_counts(1);
  EXPECT_EQ(one.potrf + one.trsm + one.syrk + one.gemm, 1u);
}

TEST(CholeskyPrecision, ParsesShortAndLongNames) {
  EXPECT_EQ(parse_precision("s"), Precision::Single);
  EXPECT_EQ(parse_precision("double"), Precision::Double);
  EXPECT_THROW(parse_precision("q"), UsageError);
  EXPECT_EQ(to_string(Precision::Single), "single");
}

template <typename T>
void expect_matches_reference(Runtime& rt, int n, int block) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " block=" << block);
  SpdMatrix spd(n);
  std::vector<T> a(std::size_t(n) * n), ref(a.size());
  spd.fill(a.data(), n);
  spd.fill(ref.data(), n);
  loop_potrf<T>(n, ref.data(), n);
  CholeskyCodelets codelets(std::is_same_v<T, float> ? Precision::Single : Precision::Double);
  Factorization f = factorize(rt, codelets, a.data(), n, n, block);
  int nt = (n + block - 1) / block;
  auto counts = task_counts(nt);
  EXPECT_EQ(f.tiles, nt);
  EXPECT_EQ(f.potrf_tasks, counts.potrf);
  EXPECT_EQ(f.gemm_tasks, counts.gemm);
  EXPECT_EQ(f.stats.tasks, f.total_tasks());
  double tol = 1e3 * n * std::numeric_limits<T>::epsilon();
  std::size_t wrong = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      std::size_t at = std::size_t(i) + std::size_t(j) * n;
      if (i < j)
        wrong += a[at] != T(spd(i, j));  // upper triangle untouched
      else
        wrong +=
            std::fabs(double(a[at]) - double(ref[at])) > tol * (1 + std::fabs(double(ref[at])));
    }
  EXPECT_EQ(wrong, 0u);
  EXPECT_LE(cholesky_residual(spd, a.data(), n), residual_bound<T>(n));
}

TEST(CholeskyGraph, CpuWorkersMatchAWholeMatrixFactorisation) {
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  common::use_single_threaded_blas();
  for (int block : {32, 48, 200, 256}) {  // 48 leaves a ragged edge; 256 > n is one tile
    expect_matches_reference<double>(rt, 200, block);
    expect_matches_reference<float>(rt, 200, block);
  }
  EXPECT_EQ(rt.stats().total_copies(), 0u);  // CPU workers work in the user's memory
}

TEST(CholeskyGraph, RejectsBadSizesAndMismatchedPrecision) {
  RuntimeOptions options;
  options.cpus = 1;
  Runtime rt(options);
  std::vector<double> a(16, 1.0);
  CholeskyCodelets d(Precision::Double), s(Precision::Single);
  EXPECT_THROW(factorize(rt, d, a.data(), 4, 4, 0), UsageError);
  EXPECT_THROW(factorize(rt, d, a.data(), 0, 4, 2), UsageError);
  EXPECT_THROW(factorize(rt, s, a.data(), 4, 4, 2), UsageError);
}

TEST(CholeskyGraph, ANonPositiveDefiniteMatrixFailsTheRun) {
  RuntimeOptions options;
  options.cpus = 2;
  Runtime rt(options);
  const int n = 64;
  std::vector<double> a(std::size_t(n) * n, 1.0);  // all ones: rank 1, not positive definite
  CholeskyCodelets d(Precision::Double);
  EXPECT_THROW(factorize(rt, d, a.data(), n, n, 16), Error);
}

// The copies the seed's table 3 predicts for gemm offloaded to one device, with t tiles per side:
// coherent: each gemm-updated tile (t-1)(t-2)/2 goes to the device once and comes back once (for
// its trsm), and every panel tile a gemm reads goes over once: sum over k with >= 2 panel tiles.
struct ExpectedCopies {
  std::uint64_t h2d, d2h;
};
ExpectedCopies coherent_copies(std::uint64_t t) {
  std::uint64_t updated = (t - 1) * (t - 2) / 2;
  std::uint64_t panel = 0;
  for (std::uint64_t k = 0; k < t; ++k)
    if (t - k - 1 >= 2) panel += t - k - 1;
  return {updated + panel, updated};
}
ExpectedCopies naive_copies(std::uint64_t t) {
  std::uint64_t gemm = t * (t - 1) * (t - 2) / 6;
  return {3 * gemm, gemm};  // A_ik, A_jk, A_ij in; A_ij out, around every gemm
}

class CholeskyOffload : public test::PerDevice {
 protected:
  template <typename T>
  Factorization run(Coherence coherence, int n, int block, bool check_result = true) {
    RuntimeOptions options;
    options.cpus = 2;
    options.devices = {GetParam()};
    options.scheduler = "offload";
    options.offload = {"gemm"};
    options.coherence = coherence;
    Runtime rt(options);
    common::use_single_threaded_blas();
    SpdMatrix spd(n);
    std::vector<T> a(std::size_t(n) * n);
    spd.fill(a.data(), n);
    CholeskyCodelets codelets(std::is_same_v<T, float> ? Precision::Single : Precision::Double);
    Factorization f = factorize(rt, codelets, a.data(), n, n, block);
    if (check_result) EXPECT_LE(cholesky_residual(spd, a.data(), n), residual_bound<T>(n));
    std::uint64_t device_tasks = 0;
    for (const auto& w : f.stats.workers)
      if (w.name.find(GetParam()) != std::string::npos) device_tasks += w.tasks;
    EXPECT_EQ(device_tasks, f.gemm_tasks) << "every gemm, and only gemm, runs on the device";
    return f;
  }
};

TEST_P(CholeskyOffload, Table3CopiesWith32x32Tiles) {
  // n = 32 * 16: the seed's 32 x 32 tiles, small enough to be quick.
  Factorization coherent = run<float>(Coherence::Coherent, 512, 16);
  EXPECT_EQ(coherent.stats.h2d_copies, 960u);
  EXPECT_EQ(coherent.stats.d2h_copies, 465u);
  EXPECT_EQ(coherent.stats.d2d_copies, 0u);
  EXPECT_EQ(coherent.stats.total_copies(), 1425u);
  EXPECT_EQ(coherent.stats.h2d_bytes, 960u * 16 * 16 * sizeof(float));

  Factorization naive = run<float>(Coherence::Naive, 512, 16);
  EXPECT_EQ(naive.stats.h2d_copies, 14880u);
  EXPECT_EQ(naive.stats.d2h_copies, 4960u);
  EXPECT_EQ(naive.stats.d2d_copies, 0u);
  EXPECT_EQ(naive.stats.total_copies(), 19840u);
}

TEST_P(CholeskyOffload, CopyCountsFollowTheFormulaForOtherSizes) {
  for (int t : {3, 7}) {
    SCOPED_TRACE(t);
    // A ragged last tile (n = 16 t - 5) changes no count.
    Factorization c = run<double>(Coherence::Coherent, 16 * t - 5, 16);
    EXPECT_EQ(c.stats.h2d_copies, coherent_copies(t).h2d);
    EXPECT_EQ(c.stats.d2h_copies, coherent_copies(t).d2h);
    Factorization n = run<double>(Coherence::Naive, 16 * t - 5, 16);
    EXPECT_EQ(n.stats.h2d_copies, naive_copies(t).h2d);
    EXPECT_EQ(n.stats.d2h_copies, naive_copies(t).d2h);
  }
}

CONVEYOR_INSTANTIATE_PER_ACCELERATOR(CholeskyOffload);

}  // namespace
}  // namespace conveyor::apps::cholesky
