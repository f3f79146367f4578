// The CPU tile kernels (BLAS and plain loops) against naive long-double references, in both
// precisions, on square and ragged tiles with leading dimensions larger than the tiles.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

template <typename T>
struct Tile {
  int rows, cols, ld;
  std::vector<T> v;
  Tile(int r, int c, int pad = 3) : rows(r), cols(c), ld(r + pad), v(std::size_t(ld) * c, T(-99)) {}
  T& operator()(int i, int j) { return v[std::size_t(i) + std::size_t(j) * ld]; }
  T* data() { return v.data(); }
};

template <typename T>
Tile<T> random_tile(int r, int c, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Tile<T> t(r, c);
  for (int j = 0; j < c; ++j)
    for (int i = 0; i < r; ++i) t(i, j) = T(u(rng));
  return t;
}

// A well-conditioned lower-triangular tile (diagonal in [1, 2]); the upper part holds garbage that
// the kernels must not read.
template <typename T>
Tile<T> lower_tile(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  Tile<T> t(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) t(i, j) = i == j ? T(1.5 + u(rng)) : i > j ? T(u(rng) / n) : T(1e6);
  return t;
}

template <typename T>
double tolerance(int k) {
  return 64.0 * (k + 1) * std::numeric_limits<T>::epsilon();
}

struct Shape {
  int m, n, k;
};
const Shape kShapes[] = {{1, 1, 1}, {16, 16, 16}, {37, 29, 17}, {64, 48, 80}};

template <typename T>
struct Kernels {
  void (*potrf)(int, T*, int);
  void (*trsm)(int, int, const T*, int, T*, int);
  void (*syrk)(int, int, const T*, int, T*, int);
  void (*gemm)(int, int, int, const T*, int, const T*, int, T*, int);
};

template <typename T>
void check_gemm(const Kernels<T>& kern) {
  std::mt19937 rng(1);
  for (auto s : kShapes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k);
    auto a = random_tile<T>(s.m, s.k, rng), b = random_tile<T>(s.n, s.k, rng);
    auto c = random_tile<T>(s.m, s.n, rng);
    auto ref = c;
    kern.gemm(s.m, s.n, s.k, a.data(), a.ld, b.data(), b.ld, c.data(), c.ld);
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i) {
        long double sum = ref(i, j);
        for (int p = 0; p < s.k; ++p) sum -= (long double)a(i, p) * b(j, p);
        ASSERT_NEAR(c(i, j), double(sum), tolerance<T>(s.k)) << i << "," << j;
      }
    // Padding rows below each column stay untouched.
    for (int j = 0; j < s.n; ++j) ASSERT_EQ(c(s.m, j), ref(s.m, j));
  }
}

template <typename T>
void check_syrk(const Kernels<T>& kern) {
  std::mt19937 rng(2);
  for (auto s : kShapes) {
    SCOPED_TRACE(::testing::Message() << s.n << "x" << s.k);
    auto a = random_tile<T>(s.n, s.k, rng);
    auto c = random_tile<T>(s.n, s.n, rng);
    auto ref = c;
    kern.syrk(s.n, s.k, a.data(), a.ld, c.data(), c.ld);
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.n; ++i) {
        if (i < j) {
          ASSERT_EQ(c(i, j), ref(i, j)) << "upper triangle changed at " << i << "," << j;
          continue;
        }
        long double sum = ref(i, j);
        for (int p = 0; p < s.k; ++p) sum -= (long double)a(i, p) * a(j, p);
        ASSERT_NEAR(c(i, j), double(sum), tolerance<T>(s.k)) << i << "," << j;
      }
  }
}

template <typename T>
void check_trsm(const Kernels<T>& kern) {
  std::mt19937 rng(3);
  for (auto s : kShapes) {
    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n);
    auto l = lower_tile<T>(s.n, rng);
    auto b = random_tile<T>(s.m, s.n, rng);
    auto x = b;
    kern.trsm(s.m, s.n, l.data(), l.ld, x.data(), x.ld);
    // X L^T must give back B.
    for (int j = 0; j < s.n; ++j)
      for (int i = 0; i < s.m; ++i) {
        long double sum = 0;
        for (int p = 0; p <= j; ++p) sum += (long double)x(i, p) * l(j, p);
        ASSERT_NEAR(double(sum), b(i, j), tolerance<T>(s.n)) << i << "," << j;
      }
  }
}

template <typename T>
void check_potrf(const Kernels<T>& kern) {
  for (int n : {1, 5, 16, 45}) {
    SCOPED_TRACE(n);
    SpdMatrix spd(n);
    Tile<T> a(n, n);
    spd.fill(a.data(), a.ld);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < j; ++i) a(i, j) = T(7);  // the upper triangle must be left alone
    auto l = a;
    kern.potrf(n, l.data(), l.ld);
    double scale = spd(n - 1, n - 1);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        if (i < j) {
          ASSERT_EQ(l(i, j), T(7));
          continue;
        }
        long double sum = 0;
        for (int p = 0; p <= j; ++p) sum += (long double)l(i, p) * l(j, p);
        ASSERT_NEAR(double(sum), spd(i, j), scale * tolerance<T>(n)) << i << "," << j;
      }
  }
}

template <typename T>
void check_potrf_rejects_indefinite(const Kernels<T>& kern) {
  Tile<T> a(3, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) a(i, j) = i == j ? T(1) : T(2);  // eigenvalue -1
  EXPECT_THROW(kern.potrf(3, a.data(), a.ld), Error);
}

template <typename T>
class CpuKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuKernels, Precisions);

template <typename T>
Kernels<T> blas() {
  return {&cpu_potrf<T>, &cpu_trsm<T>, &cpu_syrk<T>, &cpu_gemm<T>};
}
template <typename T>
Kernels<T> loops() {
  return {&loop_potrf<T>, &loop_trsm<T>, &loop_syrk<T>, &loop_gemm<T>};
}

TYPED_TEST(CpuKernels, GemmSubtractsABTransposed) {
  check_gemm(blas<TypeParam>());
  check_gemm(loops<TypeParam>());
}
TYPED_TEST(CpuKernels, SyrkUpdatesTheLowerTriangleOnly) {
  check_syrk(blas<TypeParam>());
  check_syrk(loops<TypeParam>());
}
TYPED_TEST(CpuKernels, TrsmSolvesAgainstLTransposed) {
  check_trsm(blas<TypeParam>());
  check_trsm(loops<TypeParam>());
}
TYPED_TEST(CpuKernels, PotrfFactorsTheLowerTriangle) {
  check_potrf(blas<TypeParam>());
  check_potrf(loops<TypeParam>());
}
TYPED_TEST(CpuKernels, PotrfRejectsAnIndefiniteTile) {
  check_potrf_rejects_indefinite(blas<TypeParam>());
  check_potrf_rejects_indefinite(loops<TypeParam>());
}

TEST(CpuKernelLibrary, NamesItself) { EXPECT_FALSE(cpu_kernel_library().empty()); }

}  // namespace
}  // namespace conveyor::apps::cholesky
