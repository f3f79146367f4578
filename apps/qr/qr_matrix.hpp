#pragma once
/// The test matrix of the QR application and its flop count.
///
///   GeneralMatrix a(n);                 // deterministic, entries in [-1, 1)
///   std::vector<float> m(n * n);
///   a.fill(m.data(), n);                // column-major
#include <cstdint>

#include "common/hashed_entries.hpp"

namespace conveyor::apps::qr {

/// A deterministic n x n matrix with independent-looking entries uniform in [-1, 1): the kind
/// LAPACK's QR tests factorise, well conditioned with high probability. Entries are a hash of the
/// position (common/hashed_entries.hpp), so the check regenerates A instead of keeping a copy.
class GeneralMatrix {
 public:
  explicit GeneralMatrix(int n);
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
  int n_;
};

/// Floating-point operations of a QR factorisation of a square matrix of order n, counted as
/// 4/3 n^3 (LAPACK's count for geqrf, 2 m n^2 - 2/3 n^3 with m = n; the tile algorithm does a
/// little more, which is not credited).
double qr_flops(int n);

}  // namespace conveyor::apps::qr
