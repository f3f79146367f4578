// The QR tile kernels through LAPACKE (built when CMake found OpenBLAS + LAPACKE). The _work
// variants are called with a per-thread workspace: the plain ones scan every input for NaN and
// allocate their workspace on every call, O(b^2) and a malloc per task for nothing.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <string>

#include "common/blas_threads.hpp"
#include "common/thread_scratch.hpp"
#include "conveyor/error.hpp"
#include "qr/fused_ts_update.hpp"
#include "qr/qr_cpu_kernels.hpp"

namespace conveyor::apps::qr {

bool cpu_kernels_available() { return true; }

std::string cpu_kernel_library() {
  return common::blas_library() + " + LAPACKE" +
         (fused_ts_update_chosen() ? ", TS update fused (AVX2) where a block fits in L2" : "");
}

namespace {

std::size_t product(int a, int b) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}

void check_info(lapack_int info, const char* kernel) {
  if (info != 0)
    throw Error(std::string(kernel) + ": LAPACKE rejected argument " + std::to_string(-info));
}

// The LAPACKE names by precision, so that the templates below are written once.
lapack_int geqrt(int m, int n, int ib, float* a, int lda, float* t, int ldt, float* w) {
  return LAPACKE_sgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, w);
}
lapack_int geqrt(int m, int n, int ib, double* a, int lda, double* t, int ldt, double* w) {
  return LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, m, n, ib, a, lda, t, ldt, w);
}
lapack_int gemqrt(char trans, int m, int n, int k, int ib, const float* v, int ldv, const float* t,
                  int ldt, float* c, int ldc, float* w) {
  return LAPACKE_sgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc, w);
}
lapack_int gemqrt(char trans, int m, int n, int k, int ib, const double* v, int ldv,
                  const double* t, int ldt, double* c, int ldc, double* w) {
  return LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, ib, v, ldv, t, ldt, c, ldc, w);
}
// l: the last l rows of the lower tile (and of V) are upper trapezoidal; 0 for a full tile (TS),
// min(m, n) for a triangle (TT).
lapack_int tpqrt(int m, int n, int l, int ib, float* a, int lda, float* b, int ldb, float* t,
                 int ldt, float* w) {
  return LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt, w);
}
lapack_int tpqrt(int m, int n, int l, int ib, double* a, int lda, double* b, int ldb, double* t,
                 int ldt, double* w) {
  return LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, n, l, ib, a, lda, b, ldb, t, ldt, w);
}
lapack_int tpmqrt(char trans, int m, int n, int k, int l, int ib, const float* v, int ldv,
                  const float* t, int ldt, float* a, int lda, float* b, int ldb, float* w) {
  return LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, w);
}
lapack_int tpmqrt(char trans, int m, int n, int k, int l, int ib, const double* v, int ldv,
                  const double* t, int ldt, double* a, int lda, double* b, int ldb, double* w) {
  return LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', trans, m, n, k, l, ib, v, ldv, t, ldt, a, lda,
                              b, ldb, w);
}

template <typename T>
void pentagonal_qrt(int m, int n, int l, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt,
                    const char* name) {
  check_info(tpqrt(m, n, l, ib, a, lda, b, ldb, t, ldt, common::thread_scratch<T>(product(ib, n))),
             name);
}
template <typename T>
void pentagonal_mqrt(bool transpose, int m, int n, int k, int l, int ib, const T* v, int ldv,
                     const T* t, int ldt, T* a, int lda, T* b, int ldb, const char* name) {
  check_info(tpmqrt(transpose ? 'T' : 'N', m, n, k, l, ib, v, ldv, t, ldt, a, lda, b, ldb,
                    common::thread_scratch<T>(product(n, ib))),
             name);
}

}  // namespace

// Workspace sizes are LAPACK's: ib x n for geqrt and tpqrt, n x ib for the left-side updates.
template <typename T>
void cpu_geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt) {
  check_info(geqrt(m, n, ib, a, lda, t, ldt, common::thread_scratch<T>(product(ib, n))), "geqrt");
}
template <typename T>
void cpu_gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* c, int ldc) {
  check_info(gemqrt(transpose ? 'T' : 'N', m, n, k, ib, v, ldv, t, ldt, c, ldc,
                    common::thread_scratch<T>(product(n, ib))),
             "gemqrt");
}
template <typename T>
void cpu_tpqrt(int m, int n, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt) {
  pentagonal_qrt(m, n, 0, ib, a, lda, b, ldb, t, ldt, "tpqrt");
}
// The TS update, most of the factorisation's flops: the fused kernel where it beats LAPACK's
// (fused_ts_update.hpp: LAPACK's packs the tile B again for every block of ib reflectors).
template <typename T>
void cpu_tpmqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* a, int lda, T* b, int ldb) {
  if (fused_ts_update_chosen() && fused_ts_update_fits<T>(m, ib))
    return fused_ts_update<T>(transpose, m, n, k, ib, v, ldv, t, ldt, a, lda, b, ldb);
  pentagonal_mqrt(transpose, m, n, k, 0, ib, v, ldv, t, ldt, a, lda, b, ldb, "tpmqrt");
}
template <typename T>
void cpu_ttqrt(int m, int n, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt) {
  // The triangle is the tile's first rows; below them (a tile taller than wide) are geqrt's
  // reflectors, which are not part of it.
  const int rows = std::min(m, n);
  pentagonal_qrt(rows, n, rows, ib, a, lda, b, ldb, t, ldt, "ttqrt");
}
template <typename T>
void cpu_ttmqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* a, int lda, T* b, int ldb) {
  const int rows = std::min(m, k);  // the rows of B that the triangle's reflectors reach
  pentagonal_mqrt(transpose, rows, n, k, rows, ib, v, ldv, t, ldt, a, lda, b, ldb, "ttmqrt");
}

void host_gram_upper(int m, int n, const double* q, int ldq, double* c, int ldc) {
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, n, m, 1.0, q, ldq, 0.0, c, ldc);
}

void host_times_upper(int m, int n, const double* r, int ldr, double* b, int ldb) {
  cblas_dtrmm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, m, n, 1.0, r, ldr,
              b, ldb);
}

#define CONVEYOR_INSTANTIATE(T)                                                                    \
  template void cpu_geqrt<T>(int, int, int, T*, int, T*, int);                                     \
  template void cpu_gemqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int);    \
  template void cpu_tpqrt<T>(int, int, int, T*, int, T*, int, T*, int);                            \
  template void cpu_tpmqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, \
                              int);                                                                \
  template void cpu_ttqrt<T>(int, int, int, T*, int, T*, int, T*, int);                            \
  template void cpu_ttmqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, \
                              int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
