#pragma once
/// CUDA kernels of the four QR tile kernels (transposed updates only: the factorisation's), the
/// same code as the OpenCL ones (device_kernels.inc): geqrt and tpqrt as one thread block of
/// kCudaPanelThreads, gemqrt and tpmqrt one thread per column. Enqueued on the caller's stream
/// (void*, a cudaStream_t, so that this header needs no CUDA include); pointers are device
/// pointers. Compiled by nvcc when CMake found the CUDA toolkit; not yet run on a GPU (docs/qr.md).
///
///   cuda_geqrt<double>(stream, m, n, ib, a, lda, t, ldt, v, ldv);   // returns at once
namespace conveyor::apps::qr {

/// Threads of a panel kernel's single block (a power of two: the sums halve it).
inline constexpr int kCudaPanelThreads = 64;

/// True when Conveyor was built with the CUDA toolkit; the functions below throw Error otherwise.
/// Launch errors are thrown as DeviceError.
bool cuda_kernels_available();

/// geqrt of the m x n tile a (T: ib x min(m, n)), then a copied to v.
template <typename T>
void cuda_geqrt(void* stream, int m, int n, int ib, T* a, int lda, T* t, int ldt, T* v, int ldv);
/// c <- Q^T c for the k reflectors (v, t) of a geqrt; c is m x n.
template <typename T>
void cuda_gemqrt(void* stream, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                 int ldt, T* c, int ldc);
/// tpqrt (l = 0) of the n x n triangle r on the m x n tile b.
template <typename T>
void cuda_tpqrt(void* stream, int m, int n, int ib, T* r, int ldr, T* b, int ldb, T* t, int ldt);
/// [a; b] <- Q^T [a; b] for the k reflectors (v, t) of a tpqrt; a is k x n, b m x n.
template <typename T>
void cuda_tpmqrt(void* stream, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                 int ldt, T* a, int lda, T* b, int ldb);

}  // namespace conveyor::apps::qr
