// The fused TS update (qr/fused_ts_update.hpp) against the reflectors applied one at a time, on
// shapes that reach every edge of its register blocks and panels: rows not a multiple of the vector
// width, columns not a multiple of the block or panel, ib not dividing k, ib = 1 and ib = k, B
// taller than a chunk of rows and wider than a group of panels, in both precisions and both
// directions.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "common/precision.hpp"
#include "qr/fused_ts_update.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "unit/apps/qr_tiles.hpp"

namespace conveyor::apps::qr {
namespace {

template <typename T>
class QrFusedTsUpdate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_kernels_available()) GTEST_SKIP() << "built without LAPACKE (tpqrt makes V and T)";
    // Where it can run, whether or not runs choose it (they do not on AVX-512 CPUs).
    if (!fused_ts_update_available()) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
  }
};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(QrFusedTsUpdate, Precisions);

// [A; B] <- H_i [A; B] for reflectors i in the order of Q^T (first to last) or Q (last to first):
// H_i = I - tau_i u u^T with u = [e_i; V(:, i)] and tau_i the diagonal entry of T for column i.
template <typename T>
void one_reflector_at_a_time(bool transpose, int m, int n, int k, Tile<T>& v, Tile<T>& t,
                             Tile<T>& a, Tile<T>& b) {
  for (int step = 0; step < k; ++step) {
    const int i = transpose ? step : k - 1 - step;
    const double tau = t(i % t.rows, i);  // T_p(i - p, i - p), p = the first of i's block
    for (int j = 0; j < n; ++j) {
      double w = a(i, j);
      for (int r = 0; r < m; ++r) w += double(v(r, i)) * b(r, j);
      w *= tau;
      a(i, j) = T(a(i, j) - w);
      for (int r = 0; r < m; ++r) b(r, j) = T(b(r, j) - v(r, i) * w);
    }
  }
}

struct UpdateShape {
  int m, n, k, ib;
};

TYPED_TEST(QrFusedTsUpdate, MatchesTheReflectorsAppliedOneAtATime) {
  using T = TypeParam;
  const UpdateShape shapes[] = {
      {256, 256, 256, 32},  // the default CPU tile
      {64, 48, 64, 64},     // ib = k, a whole number of panels
      {37, 29, 29, 8},      // ragged rows and columns
      {45, 50, 45, 7},      // ib not dividing k, columns past two panels
      {9, 9, 9, 1},         // ib = 1
      {3, 1, 3, 2},         // fewer rows than a vector, one column
      {100, 70, 20, 20},    // B taller than A
      {17, 31, 40, 12},     // more reflectors than rows of B
      {600, 100, 48, 16},   // rows past one chunk of W = V^T B, columns past one group
  };
  std::mt19937 rng(11);
  for (const UpdateShape& s : shapes) {
    for (bool transpose : {true, false}) {
      SCOPED_TRACE(::testing::Message() << s.m << " x " << s.n << ", k " << s.k << ", ib " << s.ib
                                        << (transpose ? ", Q^T" : ", Q"));
      // V and T from a tpqrt of [R; V], as the factorisation makes them.
      auto r = random_tile<T>(s.k, s.k, rng);
      auto v = random_tile<T>(s.m, s.k, rng);
      Tile<T> t(s.ib, s.k);
      cpu_tpqrt<T>(s.m, s.k, s.ib, r.data(), r.ld, v.data(), v.ld, t.data(), t.ld);
      auto a = random_tile<T>(s.k, s.n, rng), b = random_tile<T>(s.m, s.n, rng);
      auto a_ref = a, b_ref = b;
      fused_ts_update<T>(transpose, s.m, s.n, s.k, s.ib, v.data(), v.ld, t.data(), t.ld, a.data(),
                         a.ld, b.data(), b.ld);
      one_reflector_at_a_time(transpose, s.m, s.n, s.k, v, t, a_ref, b_ref);
      const double tolerance = 50.0 * (s.m + s.k) * common::unit_roundoff<T>();
      for (int j = 0; j < s.n; ++j) {
        for (int i = 0; i < s.k; ++i) ASSERT_NEAR(a(i, j), a_ref(i, j), tolerance) << i << "," << j;
        for (int i = 0; i < s.m; ++i) ASSERT_NEAR(b(i, j), b_ref(i, j), tolerance) << i << "," << j;
        // The padding below each column (the leading dimension's extra rows) is left alone.
        for (int i = s.m; i < b.ld; ++i) ASSERT_EQ(b(i, j), T(0)) << "padding row " << i;
      }
    }
  }
}

}  // namespace
}  // namespace conveyor::apps::qr
