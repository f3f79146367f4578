#pragma once
/// CPU tile kernels of the right-looking block Cholesky factorisation A = L L^T (lower).
///
/// Tiles are column-major: element (r, c) of a tile lives at `data[r + c * ld]`. Each kernel works
/// on tiles of any shape, so the last row/column of tiles may be ragged.
///
///   potrf  A_kk <- L_kk with L_kk L_kk^T = A_kk           (lower triangle; upper left untouched)
///   trsm   A_ik <- A_ik L_kk^-T                            (i > k)
///   syrk   A_ii <- A_ii - A_ik A_ik^T                      (lower triangle only)
///   gemm   A_ij <- A_ij - A_ik A_jk^T                      (i > j > k)
///
/// `cpu_*` use OpenBLAS/LAPACKE when Conveyor was built with them (see cpu_kernel_library()), else
/// the plain loops `loop_*`, which are always built: they are the fallback and a second opinion.
///
///   conveyor::apps::common::use_single_threaded_blas();     // one BLAS thread per task
///   cpu_potrf<double>(nb, a, lda);                          // throws Error if not positive
///   definite
#include <string>

namespace conveyor::apps::cholesky {

/// "OpenBLAS 0.3.21 (LAPACKE)" or "loops" (no BLAS found at build time).
std::string cpu_kernel_library();

template <typename T>
void cpu_potrf(int n, T* a, int lda);
template <typename T>
void cpu_trsm(int m, int n, const T* l, int ldl, T* b, int ldb);
template <typename T>
void cpu_syrk(int n, int k, const T* a, int lda, T* c, int ldc);
template <typename T>
void cpu_gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc);

/// Plain-loop versions with the same contracts.
template <typename T>
void loop_potrf(int n, T* a, int lda);
template <typename T>
void loop_trsm(int m, int n, const T* l, int ldl, T* b, int ldb);
template <typename T>
void loop_syrk(int n, int k, const T* a, int lda, T* c, int ldc);
template <typename T>
void loop_gemm(int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc);

}  // namespace conveyor::apps::cholesky
