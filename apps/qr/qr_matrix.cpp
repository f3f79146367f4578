#include "qr/qr_matrix.hpp"

#include "common/parallel_for.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::qr {

GeneralMatrix::GeneralMatrix(int m, int n) : m_(m), n_(n) {
  if (m <= 0 || n <= 0) throw UsageError("qr: the matrix order must be positive");
}

template <typename T>
void GeneralMatrix::fill(T* a, long ld) const {
  common::parallel_for(n_, [&](long c) {
    T* col = a + c * ld;
    for (int r = 0; r < m_; ++r) col[r] = static_cast<T>((*this)(r, static_cast<int>(c)));
  });
}

double qr_flops(int m, int n) {
  const double dm = m, dn = n;
  return 2.0 * dm * dn * dn - 2.0 * dn * dn * dn / 3.0;
}

template void GeneralMatrix::fill<float>(float*, long) const;
template void GeneralMatrix::fill<double>(double*, long) const;

}  // namespace conveyor::apps::qr
