#pragma once
/// CUDA kernels of the four QR tile kernels (the updates apply Q^T, the factorisation's, or Q, for
/// forming Q: q_forming.hpp), with
/// the CPU kernels' storage (cpu_kernels.hpp: R and V in the tile, T by blocks of ib) and their
/// flops in cuSOLVER and cuBLAS (qr_cuda_kernels.cu): geqrt and tpqrt through geqrf, gemqrt and
/// tpmqrt as blocked WY updates (gemm, trmm). Enqueued on the caller's stream (void*, a
/// cudaStream_t, so that this header needs no CUDA include) with cuBLAS/cuSOLVER handles and a
/// workspace kept per stream; pointers are device pointers. Nothing waits for the device.
/// Compiled by nvcc when CMake found the CUDA toolkit; not yet run on a GPU (docs/qr.md).
///
///   cuda_geqrt<double>(stream, m, n, ib, a, lda, t, ldt, v, ldv);   // returns at once
namespace conveyor::apps::qr {

/// True when Conveyor was built with the CUDA toolkit; the functions below throw Error otherwise.
/// A failed launch or library call is thrown as DeviceError, a bad shape as Error.
bool cuda_kernels_available();

/// geqrt of the m x n tile a (T: ib x min(m, n)), then a copied to v.
template <typename T>
void cuda_geqrt(void* stream, int m, int n, int ib, T* a, int lda, T* t, int ldt, T* v, int ldv);
/// c <- Q^T c (transpose) or Q c for the k reflectors (v, t) of a geqrt; c is m x n.
template <typename T>
void cuda_gemqrt(void* stream, bool transpose, int m, int n, int k, int ib, const T* v, int ldv,
                 const T* t, int ldt, T* c, int ldc);
/// tpqrt (l = 0) of the n x n triangle r on the m x n tile b.
template <typename T>
void cuda_tpqrt(void* stream, int m, int n, int ib, T* r, int ldr, T* b, int ldb, T* t, int ldt);
/// [a; b] <- Q^T [a; b] (transpose) or Q [a; b] for the k reflectors (v, t) of a tpqrt; a is
/// k x n, b m x n.
template <typename T>
void cuda_tpmqrt(void* stream, bool transpose, int m, int n, int k, int ib, const T* v, int ldv,
                 const T* t, int ldt, T* a, int lda, T* b, int ldb);

}  // namespace conveyor::apps::qr
