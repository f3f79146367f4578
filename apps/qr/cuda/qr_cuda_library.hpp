#pragma once
// What the CUDA QR kernels (qr_cuda_kernels.cu) take from cuBLAS and cuSOLVER: status checks, the
// calls they make overloaded by precision, and one StreamContext per (thread, stream) with the
// handles bound to that stream and a cached workspace. Included by .cu files only.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda/cuda_math.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::qr::cuda_library {

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA qr: ") + call + ": " + cudaGetErrorString(status));
}
inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string("CUDA qr: ") + call + ": cuBLAS status " +
                      std::to_string(static_cast<int>(status)));
}
inline void check(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(std::string("CUDA qr: ") + call + ": cuSOLVER status " +
                      std::to_string(static_cast<int>(status)));
}
#define CONVEYOR_QR_CHECK(call) ::conveyor::apps::qr::cuda_library::check((call), #call)

// The handles, the devInfo word and the workspace of one stream, created by the first task that
// runs on it (per thread: a device's tasks are launched by its driver thread, so this is once per
// device and runtime, never per task).
class StreamContext {
 public:
  explicit StreamContext(cudaStream_t stream) : stream_(stream) {
    try {
      CONVEYOR_QR_CHECK(common::cuda_math().cublasCreate(&blas_));
      CONVEYOR_QR_CHECK(common::cuda_math().cublasSetStream(blas_, stream));
      CONVEYOR_QR_CHECK(common::cuda_math().cusolverDnCreate(&solver_));
      CONVEYOR_QR_CHECK(common::cuda_math().cusolverDnSetStream(solver_, stream));
      CONVEYOR_QR_CHECK(cudaMalloc(reinterpret_cast<void**>(&info_), sizeof(int)));
    } catch (...) {
      release();  // what was created before the failure (no destructor runs)
      throw;
    }
  }
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;
  ~StreamContext() { release(); }

  cudaStream_t stream() const { return stream_; }
  cublasHandle_t blas() const { return blas_; }
  cusolverDnHandle_t solver() const { return solver_; }
  /// cuSOLVER's devInfo. Never read: geqrf reports only illegal arguments there, which the
  /// callers rule out, and reading it would wait for the stream inside a task.
  int* info() const { return info_; }

  /// A device workspace of at least `bytes`, kept for the next tasks. When a larger one is needed
  /// the old block is kept aside (freed with the context), since kernels enqueued earlier on the
  /// stream may still use it; freeing it now would wait for them. It grows a few times per run
  /// (once per larger tile shape), so what is kept aside stays small.
  void* workspace(std::size_t bytes) {
    if (bytes > work_bytes_) {
      if (work_) retired_.push_back(work_);
      work_ = nullptr;
      work_bytes_ = 0;
      CONVEYOR_QR_CHECK(cudaMalloc(&work_, bytes));
      work_bytes_ = bytes;
    }
    return work_;
  }

  /// geqrf's workspace in elements for an m x n matrix with leading dimension ld, asked of
  /// cuSOLVER once per shape and precision (`a`: a device pointer; the query does not read it).
  template <typename T>
  int geqrf_lwork(int m, int n, T* a, int ld);

 private:
  // Nothing thrown: the driver may be shutting down at thread exit.
  void release() noexcept {
    for (void* block : retired_) cudaFree(block);
    if (work_) cudaFree(work_);
    if (info_) cudaFree(info_);
    if (solver_) common::cuda_math().cusolverDnDestroy(solver_);
    if (blas_) common::cuda_math().cublasDestroy(blas_);
  }

  struct Lwork {
    int m, n, ld, precision, lwork;
  };
  cudaStream_t stream_;
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  int* info_ = nullptr;
  void* work_ = nullptr;
  std::size_t work_bytes_ = 0;
  std::vector<void*> retired_;
  std::vector<Lwork> lwork_;
};

/// The context of `stream` on the calling thread. Per thread, so looking it up takes no lock; a
/// driver thread drives few streams, so a short vector.
inline StreamContext& context_for(void* stream) {
  thread_local std::vector<std::unique_ptr<StreamContext>> contexts;
  auto s = static_cast<cudaStream_t>(stream);
  for (auto& c : contexts)
    if (c->stream() == s) return *c;
  contexts.push_back(std::make_unique<StreamContext>(s));
  return *contexts.back();
}

// --- the library calls, overloaded by precision (column-major, host scalars) --------------------

inline cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, float* a, int lda,
                                          int* lwork) {
  return common::cuda_math().cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, double* a, int lda,
                                          int* lwork) {
  return common::cuda_math().cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lwork);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* tau,
                              float* work, int lwork, int* info) {
  return common::cuda_math().cusolverDnSgeqrf(h, m, n, a, lda, tau, work, lwork, info);
}
inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* tau,
                              double* work, int lwork, int* info) {
  return common::cuda_math().cusolverDnDgeqrf(h, m, n, a, lda, tau, work, lwork, info);
}

inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, float alpha, const float* a, int lda, const float* b,
                           int ldb, float beta, float* c, int ldc) {
  return common::cuda_math().cublasSgemm(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, double alpha, const double* a, int lda, const double* b,
                           int ldb, double beta, double* c, int ldc) {
  return common::cuda_math().cublasDgemm(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

inline cublasStatus_t gemm_strided_batched(cublasHandle_t h, cublasOperation_t ta,
                                           cublasOperation_t tb, int m, int n, int k, float alpha,
                                           const float* a, int lda, long long stride_a,
                                           const float* b, int ldb, long long stride_b, float beta,
                                           float* c, int ldc, long long stride_c, int count) {
  return common::cuda_math().cublasSgemmStridedBatched(h, ta, tb, m, n, k, &alpha, a, lda, stride_a,
                                                       b, ldb, stride_b, &beta, c, ldc, stride_c,
                                                       count);
}
inline cublasStatus_t gemm_strided_batched(cublasHandle_t h, cublasOperation_t ta,
                                           cublasOperation_t tb, int m, int n, int k, double alpha,
                                           const double* a, int lda, long long stride_a,
                                           const double* b, int ldb, long long stride_b,
                                           double beta, double* c, int ldc, long long stride_c,
                                           int count) {
  return common::cuda_math().cublasDgemmStridedBatched(h, ta, tb, m, n, k, &alpha, a, lda, stride_a,
                                                       b, ldb, stride_b, &beta, c, ldc, stride_c,
                                                       count);
}

/// c = alpha op(a) b, a triangular, out of place (b and c distinct).
inline cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                           cublasOperation_t trans, cublasDiagType_t diag, int m, int n,
                           float alpha, const float* a, int lda, const float* b, int ldb, float* c,
                           int ldc) {
  return common::cuda_math().cublasStrmm(h, side, uplo, trans, diag, m, n, &alpha, a, lda, b, ldb,
                                         c, ldc);
}
inline cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,
                           cublasOperation_t trans, cublasDiagType_t diag, int m, int n,
                           double alpha, const double* a, int lda, const double* b, int ldb,
                           double* c, int ldc) {
  return common::cuda_math().cublasDtrmm(h, side, uplo, trans, diag, m, n, &alpha, a, lda, b, ldb,
                                         c, ldc);
}

/// c = alpha a + beta b (no transposes); c may be a (in place, same ld), as cuBLAS allows.
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, float alpha, const float* a, int lda,
                           float beta, const float* b, int ldb, float* c, int ldc) {
  return common::cuda_math().cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &alpha, a, lda, &beta,
                                         b, ldb, c, ldc);
}
inline cublasStatus_t geam(cublasHandle_t h, int m, int n, double alpha, const double* a, int lda,
                           double beta, const double* b, int ldb, double* c, int ldc) {
  return common::cuda_math().cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, &alpha, a, lda, &beta,
                                         b, ldb, c, ldc);
}

template <typename T>
int StreamContext::geqrf_lwork(int m, int n, T* a, int ld) {
  const int precision = static_cast<int>(sizeof(T));
  for (const auto& s : lwork_)
    if (s.m == m && s.n == n && s.ld == ld && s.precision == precision) return s.lwork;
  int lwork = 0;
  CONVEYOR_QR_CHECK(geqrf_buffer_size(solver_, m, n, a, ld, &lwork));
  lwork_.push_back({m, n, ld, precision, lwork});
  return lwork;
}

}  // namespace conveyor::apps::qr::cuda_library
