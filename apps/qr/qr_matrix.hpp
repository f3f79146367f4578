#pragma once
/// The test matrix of the QR application and its flop count.
///
///   GeneralMatrix a(n);                 // deterministic, entries in [-1, 1); a(m, n): m x n
///   std::vector<float> m(n * n);
///   a.fill(m.data(), n);                // column-major
#include <cstdint>

#include "common/hashed_entries.hpp"

namespace conveyor::apps::qr {

/// A deterministic n x n (or m x n) matrix with independent-looking entries uniform in [-1, 1):
/// the kind LAPACK's QR tests factorise, well conditioned with high probability. Entries are a
/// hash of the position (common/hashed_entries.hpp), so the check regenerates A instead of keeping
/// a copy; an m x n matrix is the first n columns of the m x m one.
class GeneralMatrix {
 public:
  explicit GeneralMatrix(int n) : GeneralMatrix(n, n) {}
  GeneralMatrix(int m, int n);
  int m() const { return m_; }
  int n() const { return n_; }
  /// Entry (row, col), 0-based.
  double operator()(int row, int col) const {
    return 2.0 * common::hashed_unit(common::position_key(static_cast<std::uint64_t>(col),
                                                          static_cast<std::uint64_t>(row))) -
           1.0;
  }
  /// Writes the matrix column-major with leading dimension `ld`, on every core.
  template <typename T>
  void fill(T* a, long ld) const;

 private:
  int m_, n_;
};

/// Floating-point operations of a QR factorisation of an m x n matrix, counted as LAPACK counts
/// geqrf's, 2 m n^2 - 2/3 n^3 (4/3 n^3 when square; the tile algorithm does a little more, which
/// is not credited).
double qr_flops(int m, int n);
inline double qr_flops(int n) { return qr_flops(n, n); }

}  // namespace conveyor::apps::qr
