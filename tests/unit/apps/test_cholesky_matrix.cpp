// The test matrix, the flop count and the residual check.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

TEST(SpdMatrix, IsSymmetricDiagonallyDominantAndDeterministic) {
  SpdMatrix a(50), b(50);
  for (int i = 0; i < 50; ++i) {
    double off = 0;
    for (int j = 0; j < 50; ++j) {
      EXPECT_EQ(a(i, j), a(j, i));
      EXPECT_EQ(a(i, j), b(i, j));
      if (i != j) {
        EXPECT_GE(a(i, j), 0.0);
        EXPECT_LT(a(i, j), 1.0);
        off += a(i, j);
      }
    }
    EXPECT_NEAR(a(i, i), off + 1.0, 1e-9);
  }
  EXPECT_NE(a(3, 1), a(4, 1));
}

TEST(SpdMatrix, FillWritesBothTrianglesAndKeepsThePadding) {
  SpdMatrix a(7);
  std::vector<float> m(9 * 7, -1.0f);
  a.fill(m.data(), 9);
  for (int j = 0; j < 7; ++j) {
    for (int i = 0; i < 7; ++i) EXPECT_EQ(m[i + j * 9], float(a(i, j)));
    EXPECT_EQ(m[7 + j * 9], -1.0f);
  }
  EXPECT_THROW(SpdMatrix(0), UsageError);
}

TEST(CholeskyFlops, IsNCubedOverThree) { EXPECT_DOUBLE_EQ(cholesky_flops(300), 9e6); }

template <typename T>
double factor_and_check(int n, bool spoil) {
  SpdMatrix a(n);
  std::vector<T> m(std::size_t(n) * n);
  a.fill(m.data(), n);
  loop_potrf<T>(n, m.data(), n);
  if (spoil) m[std::size_t(n - 1)] += T(0.5);  // one entry of L wrong
  return cholesky_residual(a, m.data(), n);
}

TEST(CholeskyResidual, IsSmallForACorrectFactorAndLargeForAWrongOne) {
  // 300 is not a multiple of the check's 256 tiles: covers its ragged edge.
  for (int n : {1, 33, 300}) {
    SCOPED_TRACE(n);
    EXPECT_LE(factor_and_check<double>(n, false), residual_bound<double>(n));
    EXPECT_LE(factor_and_check<float>(n, false), residual_bound<float>(n));
  }
  EXPECT_GT(factor_and_check<double>(300, true), residual_bound<double>(300));
  EXPECT_GT(factor_and_check<float>(300, true), residual_bound<float>(300));
}

// A skipped gemm task leaves one tile of A without one update L_ik L_jk^T: the factor is then the
// exact factor of a different matrix. The check must see that, in both precisions.
template <typename T>
double residual_with_a_skipped_gemm(int n, int b, int ti, int tj, int tk) {
  SpdMatrix a(n);
  std::vector<T> l(std::size_t(n) * n);
  a.fill(l.data(), n);
  loop_potrf<T>(n, l.data(), n);
  std::vector<T> wrong(l.size());
  a.fill(wrong.data(), n);
  for (int c = 0; c < b; ++c)
    for (int r = 0; r < b; ++r) {
      T u = 0;
      for (int p = 0; p < b; ++p)
        u += l[std::size_t(ti * b + r) + std::size_t(tk * b + p) * n] *
             l[std::size_t(tj * b + c) + std::size_t(tk * b + p) * n];
      wrong[std::size_t(ti * b + r) + std::size_t(tj * b + c) * n] += u;  // update not subtracted
      wrong[std::size_t(tj * b + c) + std::size_t(ti * b + r) * n] += u;
    }
  loop_potrf<T>(n, wrong.data(), n);
  return cholesky_residual(a, wrong.data(), n);
}

TEST(CholeskyResidual, SeesASkippedGemmUpdate) {
  EXPECT_GT(residual_with_a_skipped_gemm<float>(512, 16, 20, 10, 3), residual_bound<float>(512));
  EXPECT_GT(residual_with_a_skipped_gemm<double>(512, 16, 20, 10, 3), residual_bound<double>(512));
  // The last update of the last tile: the smallest entries of L meet there.
  EXPECT_GT(residual_with_a_skipped_gemm<float>(512, 64, 7, 6, 5), residual_bound<float>(512));
}

TEST(CholeskyResidual, IgnoresTheUpperTriangleAndFlagsNaN) {
  const int n = 40;
  SpdMatrix a(n);
  std::vector<double> m(std::size_t(n) * n);
  a.fill(m.data(), n);
  loop_potrf<double>(n, m.data(), n);
  m[std::size_t(n) * (n - 1)] = 1e30;  // (0, n-1): upper triangle
  EXPECT_LE(cholesky_residual(a, m.data(), n), residual_bound<double>(n));
  m[5] = std::nan("");
  EXPECT_TRUE(std::isinf(cholesky_residual(a, m.data(), n)));
}

TEST(CholeskyResidual, BoundsScaleWithPrecision) {
  EXPECT_GT(residual_bound<float>(1000), residual_bound<double>(1000));
  EXPECT_GT(residual_bound<double>(2000), residual_bound<double>(1000));
}

}  // namespace
}  // namespace conveyor::apps::cholesky
