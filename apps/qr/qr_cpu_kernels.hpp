#pragma once
/// CPU tile kernels of the tile Householder QR factorisation (Buttari et al., PLASMA), through
/// LAPACK's blocked-reflector routines. Tiles are column-major, element (r, c) at `a[r + c * ld]`,
/// and may be ragged; `ib` is the inner blocking (the order of the triangular factors T, which are
/// ib x k, k the number of reflectors), 1 <= ib <= k.
///
///   geqrt   A_kk = Q_kk R_kk: R in the upper triangle, the reflectors V below the diagonal
///           (unit diagonal implied), T_kk (ib x n) the factors of Q_kk = I - V T V^T by blocks
///   gemqrt  C <- Q^T C (or Q C) for the Q of a geqrt (V, T); C is m x n, k reflectors of length m
///   tpqrt   [R; B] = Q [R'; 0] for R (n x n, upper triangular) stacked on a full m x n tile B:
///           R' replaces R's upper triangle, B is overwritten by the reflectors (the "ts" kernel)
///   tpmqrt  [A; B] <- Q^T [A; B] (or Q) for the Q of a tpqrt (V = its B, T): A is k x n, B m x n
///
///   ttqrt   [R; S] = Q [R'; 0] for two upper triangular (trapezoidal) tiles, R n x n and S the
///           first min(m, n) rows of an m x n tile: only S's upper trapezoid is read and
///           overwritten by the reflectors, so the reflectors of an earlier geqrt below its
///           diagonal stay (the "tt" kernel of a tree), also in a tile taller than wide (m > n)
///   ttmqrt  [A; B] <- Q^T [A; B] (or Q) for the Q of a ttqrt (V = its S, upper trapezoidal, k
///           columns): B is the first min(m, k) rows of an m x n tile, the rows V reaches
///
/// tpqrt/tpmqrt are LAPACK's ?tpqrt/?tpmqrt with l = 0 (the lower tile is a full rectangle, the
/// tile QR's tsqrt/tsmqr), ttqrt/ttmqrt the same routines on a triangle (l = its rows).
///
///   if (!cpu_kernels_available()) ...;        // built without LAPACKE: every kernel throws
///   cpu_geqrt<double>(b, b, ib, a, lda, t, ib);
#include <string>

namespace conveyor::apps::qr {

/// Whether this build has the kernels (LAPACKE was found when Conveyor was configured).
bool cpu_kernels_available();
/// "OpenBLAS ... + LAPACKE", or "none (built without LAPACKE)".
std::string cpu_kernel_library();

template <typename T>
void cpu_geqrt(int m, int n, int ib, T* a, int lda, T* t, int ldt);
template <typename T>
void cpu_gemqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* c, int ldc);
template <typename T>
void cpu_tpqrt(int m, int n, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt);
template <typename T>
void cpu_tpmqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* a, int lda, T* b, int ldb);
template <typename T>
void cpu_ttqrt(int m, int n, int ib, T* a, int lda, T* b, int ldb, T* t, int ldt);
template <typename T>
void cpu_ttmqrt(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                int ldt, T* a, int lda, T* b, int ldb);

/// Host products for the check (double precision, every BLAS thread the caller allows), q and b
/// m x n: c = q^T q in the upper triangle of c (n x n), and b <- b r for r upper triangular
/// (n x n).
void host_gram_upper(int m, int n, const double* q, int ldq, double* c, int ldc);
void host_times_upper(int m, int n, const double* r, int ldr, double* b, int ldb);

}  // namespace conveyor::apps::qr
