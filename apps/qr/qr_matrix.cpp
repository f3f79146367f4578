#include "qr/qr_matrix.hpp"

#include "common/parallel_for.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::qr {

GeneralMatrix::GeneralMatrix(int n) : n_(n) {
  if (n <= 0) throw UsageError("qr: the matrix order must be positive");
}

template <typename T>
void GeneralMatrix::fill(T* a, long ld) const {
  common::parallel_for(n_, [&](long c) {
    T* col = a + c * ld;
    for (int r = 0; r < n_; ++r) col[r] = static_cast<T>((*this)(r, static_cast<int>(c)));
  });
}

double qr_flops(int n) {
  double dn = n;
  return 4.0 * dn * dn * dn / 3.0;
}

template void GeneralMatrix::fill<float>(float*, long) const;
template void GeneralMatrix::fill<double>(double*, long) const;

}  // namespace conveyor::apps::qr
