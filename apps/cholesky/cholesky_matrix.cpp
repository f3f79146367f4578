#include "cholesky/cholesky_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "common/hashed_entries.hpp"
#include "common/parallel_for.hpp"
#include "common/precision.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

using common::parallel_for;

double SpdMatrix::off_diagonal(int row, int col) {
  // Keyed by (larger, smaller) index: the matrix is symmetric by construction.
  auto lo = static_cast<std::uint64_t>(std::min(row, col));
  auto hi = static_cast<std::uint64_t>(std::max(row, col));
  return common::hashed_unit(common::position_key(hi, lo));
}

SpdMatrix::SpdMatrix(int n) : n_(n), diagonal_(static_cast<std::size_t>(std::max(n, 0)), 1.0) {
  if (n <= 0) throw UsageError("cholesky: the matrix order must be positive");
  // Row sums of the off-diagonal part, by columns of the lower triangle (each entry counted for its
  // row and its column).
  for (int c = 0; c < n; ++c)
    for (int r = c + 1; r < n; ++r) {
      double v = off_diagonal(r, c);
      diagonal_[static_cast<std::size_t>(r)] += v;
      diagonal_[static_cast<std::size_t>(c)] += v;
    }
}

template <typename T>
void SpdMatrix::fill(T* a, long ld) const {
  parallel_for(n_, [&](long c) {
    T* col = a + c * ld;
    for (int r = 0; r < n_; ++r) col[r] = static_cast<T>((*this)(r, static_cast<int>(c)));
  });
}

double cholesky_flops(int n) {
  double dn = n;
  return dn * dn * dn / 3.0;
}

template <typename T>
double residual_bound(int n) {
  return 8.0 * std::sqrt(static_cast<double>(n)) * common::unit_roundoff<T>();
}

template <typename T>
double cholesky_residual(const SpdMatrix& a, const T* l, long ld) {
  const int n = a.n();
  const long nn = n;
  // L in double with its upper triangle zeroed, so that one gemm per tile of the result sums all of
  // L_IK L_JK^T (the zeros make K > J contribute nothing).
  std::vector<double> ld_copy(static_cast<std::size_t>(nn * nn));
  parallel_for(n, [&](long c) {
    double* dst = ld_copy.data() + c * nn;
    const T* src = l + c * ld;
    for (long r = 0; r < c; ++r) dst[r] = 0.0;
    for (long r = c; r < nn; ++r) dst[r] = static_cast<double>(src[r]);
  });

  constexpr int kTile = 256;
  const int tiles = (n + kTile - 1) / kTile;
  const long pairs = static_cast<long>(tiles) * (tiles + 1) / 2;
  std::vector<double> error_sq(static_cast<std::size_t>(pairs)), norm_sq(error_sq.size());
  parallel_for(pairs, [&](long p) {
    // Tile pair p -> (ti, tj) with ti >= tj, row-major over the lower triangle of tiles.
    int ti = static_cast<int>((std::sqrt(8.0 * static_cast<double>(p) + 1) - 1) / 2);
    while (static_cast<long>(ti) * (ti + 1) / 2 > p) --ti;
    while (static_cast<long>(ti + 1) * (ti + 2) / 2 <= p) ++ti;
    int tj = static_cast<int>(p - static_cast<long>(ti) * (ti + 1) / 2);
    int r0 = ti * kTile, c0 = tj * kTile;
    int m = std::min(kTile, n - r0), w = std::min(kTile, n - c0);
    std::vector<double> tile(static_cast<std::size_t>(m) * w);
    double norm = 0;
    for (int c = 0; c < w; ++c)
      for (int r = 0; r < m; ++r) {
        double v = a(r0 + r, c0 + c);
        tile[static_cast<std::size_t>(r + c * m)] = v;
        norm += v * v;
      }
    int k = std::min(c0 + w, n);
    cpu_gemm<double>(m, w, k, ld_copy.data() + r0, n, ld_copy.data() + c0, n, tile.data(), m);
    double err = 0;
    for (double v : tile) err += v * v;
    double weight = ti == tj ? 1.0 : 2.0;  // an off-diagonal tile stands for its mirror image too
    error_sq[static_cast<std::size_t>(p)] = weight * err;
    norm_sq[static_cast<std::size_t>(p)] = weight * norm;
  });
  double err = 0, norm = 0;
  for (std::size_t p = 0; p < error_sq.size(); ++p) {
    err += error_sq[p];
    norm += norm_sq[p];
  }
  double r = std::sqrt(err) / std::sqrt(norm);
  if (!std::isfinite(r)) return std::numeric_limits<double>::infinity();
  return r;
}

template void SpdMatrix::fill<float>(float*, long) const;
template void SpdMatrix::fill<double>(double*, long) const;
template double residual_bound<float>(int);
template double residual_bound<double>(int);
template double cholesky_residual<float>(const SpdMatrix&, const float*, long);
template double cholesky_residual<double>(const SpdMatrix&, const double*, long);

}  // namespace conveyor::apps::cholesky
