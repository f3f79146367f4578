// Built when CMake found no OpenBLAS/LAPACKE: the CPU kernels are the plain loops.
#include "cholesky/cholesky_cpu_kernels.hpp"

namespace conveyor::apps::cholesky {

std::string cpu_kernel_library() { return "loops"; }

template <typename T>
void cpu_potrf(int n, T* a, int lda) {
  loop_potrf(n, a, lda);
}
template <typename T>
void cpu_trsm(int m, int n, const T* l, int ldl, T* b, int ldb) {
  loop_trsm(m, n, l, ldl, b, ldb);
}
template <typename T>
void cpu_syrk(int n, int k, const T* a, int lda, T* c, int ldc) {
  loop_syrk(n, k, a, lda, c, ldc);
}
template <typename T>
void cpu_gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
  loop_gemm(m, n, k, a, lda, b, ldb, c, ldc);
}

#define CONVEYOR_INSTANTIATE(T)                                \
  template void cpu_potrf<T>(int, T*, int);                    \
  template void cpu_trsm<T>(int, int, const T*, int, T*, int); \
  template void cpu_syrk<T>(int, int, const T*, int, T*, int); \
  template void cpu_gemm<T>(int, int, int, const T*, int, const T*, int, T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::cholesky
