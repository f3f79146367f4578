// Plain-loop tile kernels: the fallback when no BLAS was found, and a cross-check in the tests.
// Loop orders keep the innermost loop on contiguous (column-major) memory so the compiler
// vectorises.
#include <cmath>
#include <string>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

template <typename T>
void loop_potrf(int n, T* a, int lda) {
  // Left-looking by columns: column j is updated by the finished columns 0..j-1, then scaled.
  for (int j = 0; j < n; ++j) {
    T* col_j = a + static_cast<long>(j) * lda;
    for (int p = 0; p < j; ++p) {
      const T* col_p = a + static_cast<long>(p) * lda;
      T ljp = col_p[j];
      for (int r = j; r < n; ++r) col_j[r] -= col_p[r] * ljp;
    }
    T d = col_j[j];
    if (!(d > T(0)))
      throw Error("potrf: tile is not positive definite (pivot " + std::to_string(j) + ")");
    d = std::sqrt(d);
    col_j[j] = d;
    for (int r = j + 1; r < n; ++r) col_j[r] /= d;
  }
}

template <typename T>
void loop_trsm(int m, int n, const T* l, int ldl, T* b, int ldb) {
  // X L^T = B, solved column by column: x_j = (b_j - sum_{p<j} x_p l_jp) / l_jj.
  for (int j = 0; j < n; ++j) {
    T* x_j = b + static_cast<long>(j) * ldb;
    for (int p = 0; p < j; ++p) {
      const T* x_p = b + static_cast<long>(p) * ldb;
      T ljp = l[j + static_cast<long>(p) * ldl];
      for (int r = 0; r < m; ++r) x_j[r] -= x_p[r] * ljp;
    }
    T inv = T(1) / l[j + static_cast<long>(j) * ldl];
    for (int r = 0; r < m; ++r) x_j[r] *= inv;
  }
}

template <typename T>
void loop_syrk(int n, int k, const T* a, int lda, T* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    T* c_j = c + static_cast<long>(j) * ldc;
    for (int p = 0; p < k; ++p) {
      const T* a_p = a + static_cast<long>(p) * lda;
      T ajp = a_p[j];
      for (int r = j; r < n; ++r) c_j[r] -= a_p[r] * ajp;
    }
  }
}

template <typename T>
void loop_gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
  for (int j = 0; j < n; ++j) {
    T* c_j = c + static_cast<long>(j) * ldc;
    for (int p = 0; p < k; ++p) {
      const T* a_p = a + static_cast<long>(p) * lda;
      T bjp = b[j + static_cast<long>(p) * ldb];
      for (int r = 0; r < m; ++r) c_j[r] -= a_p[r] * bjp;
    }
  }
}

#define CONVEYOR_INSTANTIATE(T)                                 \
  template void loop_potrf<T>(int, T*, int);                    \
  template void loop_trsm<T>(int, int, const T*, int, T*, int); \
  template void loop_syrk<T>(int, int, const T*, int, T*, int); \
  template void loop_gemm<T>(int, int, int, const T*, int, const T*, int, T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::cholesky
