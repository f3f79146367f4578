#pragma once
/// CUDA tile kernels of the block Cholesky factorisation: cuSOLVER potrf and cuBLAS trsm, syrk,
/// gemm, enqueued asynchronously on the caller's stream. Same contracts and column-major layout as
/// the CPU kernels (cholesky_cpu_kernels.hpp); pointers are device pointers.
///
/// Each (thread, stream) pair gets its own cuBLAS and cuSOLVER handles, bound to that stream once,
/// and one potrf workspace that grows when needed and is then reused, so a task costs no handle
/// creation and no cudaMalloc. The stream is passed as `void*` (a cudaStream_t) so that this header
/// needs no CUDA include.
///
///   cuda_gemm<float>(stream, nb, nb, nb, a_ik, nb, a_jk, nb, a_ij, nb);   // returns at once
namespace conveyor::apps::cholesky {

/// True when Conveyor was built with the CUDA toolkit (cuBLAS and cuSOLVER). The functions below
/// throw conveyor::Error when it was not.
bool cuda_kernels_available();

/// potrf does not wait for the factorisation: a tile that is not positive definite is not reported
/// here (cuSOLVER writes its status on the device); the residual check of the application finds it.
template <typename T>
void cuda_potrf(void* stream, int n, T* a, int lda);
template <typename T>
void cuda_trsm(void* stream, int m, int n, const T* l, int ldl, T* b, int ldb);
template <typename T>
void cuda_syrk(void* stream, int n, int k, const T* a, int lda, T* c, int ldc);
template <typename T>
void cuda_gemm(void* stream, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c,
               int ldc);

}  // namespace conveyor::apps::cholesky
