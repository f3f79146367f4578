#pragma once
/// The tile QR's TS update, [A; B] <- Q^T [A; B] (or Q [A; B]) for the Q of a tpqrt (LAPACK's
/// ?tpmqrt with l = 0, the arguments of `cpu_tpmqrt` in qr_cpu_kernels.hpp), as one fused kernel
/// for x86-64 CPUs with AVX2 and FMA.
///
/// Why not LAPACK's: ?tpmqrt applies the reflectors ib at a time through two gemm calls each, and
/// every call packs the whole m x n tile B again, b / ib times per update: on one Zen 3 core at
/// tile 256, ib 32 that runs at 0.66-0.75 of dgemm's rate, this kernel at 0.76-0.89
/// (docs/results/qr.md). Here B is updated
/// in place, a panel of columns at a time, every block of reflectors applied to the panel while it
/// is in cache; V is packed once per call and the products are register-blocked outer products.
///
///   if (fused_ts_update_chosen() && fused_ts_update_fits<double>(m, ib))
///     fused_ts_update<double>(true, m, n, k, ib, v, ldv, t, ldt, a, lda, b, ldb);
///
/// `cpu_tpmqrt` runs it where the CPU has AVX2 and FMA but not AVX-512 (OpenBLAS's gemm is twice
/// as wide there) and a block fits in L2 (below); `CONVEYOR_QR_TS_UPDATE=lapack` in the
/// environment keeps LAPACK's routine everywhere, to compare the two.
#include <cstddef>

namespace conveyor::apps::qr {

/// Whether this build and CPU can run the fused kernel (x86-64 with AVX2 and FMA, built by GCC or
/// Clang).
bool fused_ts_update_available();

/// Whether `cpu_tpmqrt` uses it: available, the CPU without AVX-512F, and not turned off by
/// CONVEYOR_QR_TS_UPDATE=lapack (read once). Throws conveyor::UsageError for any other value of
/// the variable.
bool fused_ts_update_chosen();

/// The L2 cache of one core in bytes (sysconf's; 512 KiB where it does not say).
std::size_t core_l2_bytes();

/// Whether the kernel beats LAPACK's for B of m rows and blocks of ib reflectors: where a block's
/// reflectors and their two packed copies (3 m ib values) fit in one core's L2. Measured on a Zen 3
/// core (512 KiB L2, docs/results/qr.md), double: it wins at tile 256, ib 32 and 320, ib 64, where
/// they fit, and loses at 640, ib 80 and 1024, ib 128, where each panel of columns streams them
/// from L3.
template <typename T>
bool fused_ts_update_fits(int m, int ib) {
  return 3 * static_cast<std::size_t>(m) * static_cast<std::size_t>(ib) * sizeof(T) <=
         core_l2_bytes();
}

/// [A; B] <- Q^T [A; B] (transpose) or Q [A; B]: A is k x n, B m x n, V m x k (k reflectors), T
/// ib x k (its blocks' triangular factors), all column-major; 1 <= ib <= k. Throws
/// conveyor::Error when not available.
template <typename T>
void fused_ts_update(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                     int ldt, T* a, int lda, T* b, int ldb);

}  // namespace conveyor::apps::qr
