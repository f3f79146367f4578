#pragma once
/// The test matrix of the Cholesky application, its flop count and the residual check.
///
///   SpdMatrix a(n);                         // deterministic, symmetric positive definite
///   std::vector<double> m(n * n);
///   a.fill(m.data(), n);                    // column-major, both triangles
///   ... factorise m in place (lower) ...
///   double r = cholesky_residual(a, m.data(), n);   // ||A - L L^T||_F / ||A||_F
///   bool ok = r <= residual_bound<double>(n);
#include <cstdint>
#include <vector>

namespace conveyor::apps::cholesky {

/// A deterministic symmetric positive definite matrix of order n. Off-diagonal entries are
/// pseudo-random in [0, 1) (a hash of the position, so any entry can be regenerated without storing
/// the matrix); each diagonal entry is its row's off-diagonal sum plus 1, so the matrix is strictly
/// diagonally dominant (all eigenvalues >= 1). The entries are positive on purpose: every update of
/// the factorisation then changes the result by a visible amount, so a skipped or misordered task
/// shows in the residual instead of vanishing in noise.
class SpdMatrix {
 public:
  explicit SpdMatrix(int n);
  int n() const { return n_; }
  /// Entry (row, col), 0-based; symmetric.
  double operator()(int row, int col) const {
    return row == col ? diagonal_[static_cast<std::size_t>(row)] : off_diagonal(row, col);
  }
  /// Writes the whole matrix (both triangles), column-major with leading dimension `ld`.
  template <typename T>
  void fill(T* a, long ld) const;

  static double off_diagonal(int row, int col);

 private:
  int n_;
  std::vector<double> diagonal_;
};

/// Floating-point operations of a Cholesky factorisation of order n, counted as n^3/3 (the
/// convention of LAPACK's benchmarks and of StarPU's examples).
double cholesky_flops(int n);

/// ||A - L L^T||_F / ||A||_F for the lower factor L stored in `l` (column-major, leading dimension
/// `ld`; the strict upper triangle is ignored), computed in double precision with every core.
template <typename T>
double cholesky_residual(const SpdMatrix& a, const T* l, long ld);

/// The largest residual accepted: 8 sqrt(n) u, with u the unit roundoff of T. The worst-case
/// backward error bound of Cholesky grows like n u, but rounding errors add up like a random walk
/// in practice (probabilistic error analysis: sqrt(n) u), and measured residuals are a few u; the
/// tighter bound lets the check see a skipped update, which n u would hide at large n in single
/// precision. The result does not depend on the schedule (each tile's updates are ordered by
/// their dependencies), so the check is deterministic for a given n and set of kernels.
template <typename T>
double residual_bound(int n);

}  // namespace conveyor::apps::cholesky
