// CPU tile kernels through CBLAS and LAPACKE from OpenBLAS (built when CMake found both).
#include <cblas.h>
#include <lapacke.h>

#include <string>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "common/blas_threads.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

std::string cpu_kernel_library() { return common::blas_library() + " + LAPACKE"; }

namespace {

void check_potrf_info(lapack_int info, int n) {
  if (info > 0)
    throw Error("potrf: tile is not positive definite (leading minor " + std::to_string(info) +
                " of " + std::to_string(n) + ")");
  if (info < 0) throw Error("potrf: LAPACKE rejected argument " + std::to_string(-info));
}

}  // namespace

template <>
void cpu_potrf<float>(int n, float* a, int lda) {
  // The _work variant skips LAPACKE's O(n^2) NaN scan of the input on every call.
  check_potrf_info(LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda), n);
}
template <>
void cpu_potrf<double>(int n, double* a, int lda) {
  check_potrf_info(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda), n);
}

template <>
void cpu_trsm<float>(int m, int n, const float* l, int ldl, float* b, int ldb) {
  cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0f, l, ldl,
              b, ldb);
}
template <>
void cpu_trsm<double>(int m, int n, const double* l, int ldl, double* b, int ldb) {
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, l, ldl, b,
              ldb);
}

template <>
void cpu_syrk<float>(int n, int k, const float* a, int lda, float* c, int ldc) {
  cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0f, a, lda, 1.0f, c, ldc);
}
template <>
void cpu_syrk<double>(int n, int k, const double* a, int lda, double* c, int ldc) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
}

template <>
void cpu_gemm<float>(int m, int n, int k, const float* a, int lda, const float* b, int ldb,
                     float* c, int ldc) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0f, a, lda, b, ldb, 1.0f, c,
              ldc);
}
template <>
void cpu_gemm<double>(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                      double* c, int ldc) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, lda, b, ldb, 1.0, c, ldc);
}

}  // namespace conveyor::apps::cholesky
