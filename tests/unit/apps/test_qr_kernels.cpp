// The QR tile kernels one by one, in both precisions, on ragged tiles with leading dimensions
// larger than the tiles: geqrt + gemqrt reproduce the tile, tpqrt + tpmqrt reproduce a stacked
// pair, and applying Q^T then Q gives the input back.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/precision.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "unit/apps/qr_tiles.hpp"

namespace conveyor::apps::qr {
namespace {

template <typename T>
double tolerance(int n) {
  return 50.0 * n * common::unit_roundoff<T>();
}

template <typename T>
class QrKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE";
  }
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(QrKernels, Precisions);

struct KernelShape {
  int m, n, ib;
};
// Square, tall (a ragged edge tile below), ib not dividing n, ib = n, ib = 1.
const KernelShape kShapes[] = {{16, 16, 4}, {37, 29, 8}, {45, 45, 7}, {20, 20, 20}, {9, 9, 1}};

TYPED_TEST(QrKernels, GeqrtThenGemqrtRebuildsTheTile) {
  using T = TypeParam;
  std::mt19937 rng(1);
  for (auto s : kShapes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << " ib " << s.ib);
    auto a = random_tile<T>(s.m, s.n, rng);
    auto f = a;
    Tile<T> t(s.ib, s.n, 0);
    cpu_geqrt<T>(s.m, s.n, s.ib, f.data(), f.ld, t.data(), t.ld);
    // Q R with R the upper triangle of f: apply Q (no transpose) to R.
    Tile<T> qr(s.m, s.n);
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i <= std::min(j, s.m - 1); ++i) qr(i, j) = f(i, j);
    cpu_gemqrt<T>(false, s.m, s.n, s.n, s.ib, f.data(), f.ld, t.data(), t.ld, qr.data(), qr.ld);
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i)
        ASSERT_NEAR(qr(i, j), a(i, j), tolerance<T>(s.m)) << i << "," << j;
    // Q^T A is R (zero below the diagonal).
    auto qta = a;
    cpu_gemqrt<T>(true, s.m, s.n, s.n, s.ib, f.data(), f.ld, t.data(), t.ld, qta.data(), qta.ld);
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i)
        ASSERT_NEAR(qta(i, j), i <= j ? f(i, j) : T(0), tolerance<T>(s.m)) << i << "," << j;
  }
}

TYPED_TEST(QrKernels, TpqrtThenTpmqrtRebuildsTheStackedPair) {
  using T = TypeParam;
  std::mt19937 rng(2);
  for (auto s : kShapes) {
    const int n = s.n, m = s.m;  // R is n x n, B is m x n
    SCOPED_TRACE(::testing::Message() << m << "x" << n << " ib " << s.ib);
    auto r = random_tile<T>(n, n, rng);
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < n; ++i) r(i, j) = T(0);  // upper triangular
    auto b = random_tile<T>(m, n, rng);
    auto r2 = r, b2 = b;
    Tile<T> t(s.ib, n, 0);
    cpu_tpqrt<T>(m, n, s.ib, r2.data(), r2.ld, b2.data(), b2.ld, t.data(), t.ld);
    // Q [R'; 0] must give [R; B] back.
    Tile<T> top(n, n), bottom(m, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i) top(i, j) = r2(i, j);
    cpu_tpmqrt<T>(false, m, n, n, s.ib, b2.data(), b2.ld, t.data(), t.ld, top.data(), top.ld,
                  bottom.data(), bottom.ld);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) ASSERT_NEAR(top(i, j), r(i, j), tolerance<T>(m + n)) << i;
      for (int i = 0; i < m; ++i) ASSERT_NEAR(bottom(i, j), b(i, j), tolerance<T>(m + n)) << i;
    }
  }
}

TYPED_TEST(QrKernels, TransposeThenNoTransposeIsTheIdentity) {
  using T = TypeParam;
  std::mt19937 rng(3);
  const int n = 24, m = 31, cols = 13, ib = 5;
  auto v = random_tile<T>(m, n, rng);
  auto r = random_tile<T>(n, n, rng);
  Tile<T> t(ib, n, 0);
  cpu_tpqrt<T>(m, n, ib, r.data(), r.ld, v.data(), v.ld, t.data(), t.ld);
  auto a = random_tile<T>(n, cols, rng), b = random_tile<T>(m, cols, rng);
  auto a2 = a, b2 = b;
  cpu_tpmqrt<T>(true, m, cols, n, ib, v.data(), v.ld, t.data(), t.ld, a2.data(), a2.ld, b2.data(),
                b2.ld);
  cpu_tpmqrt<T>(false, m, cols, n, ib, v.data(), v.ld, t.data(), t.ld, a2.data(), a2.ld, b2.data(),
                b2.ld);
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < n; ++i) ASSERT_NEAR(a2(i, j), a(i, j), tolerance<T>(m + n));
    for (int i = 0; i < m; ++i) ASSERT_NEAR(b2(i, j), b(i, j), tolerance<T>(m + n));
  }
}

TEST(QrKernelLibrary, NamesItself) { EXPECT_FALSE(cpu_kernel_library().empty()); }

}  // namespace
}  // namespace conveyor::apps::qr
