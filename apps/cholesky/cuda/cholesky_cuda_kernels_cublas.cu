// CUDA tile kernels through cuBLAS and cuSOLVER (built when CMake found the CUDA toolkit).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <memory>
#include <string>
#include <vector>

#include "cholesky/cuda/cholesky_cuda_kernels.hpp"
#include "common/cuda/cuda_math.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw DeviceError(std::string(call) + ": " + cudaGetErrorString(status));
}
void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(std::string(call) + ": cuBLAS status " + std::to_string(int(status)));
}
void check(cusolverStatus_t status, const char* call) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(std::string(call) + ": cuSOLVER status " + std::to_string(int(status)));
}
#define CONVEYOR_CHECK(call) check((call), #call)

// The handles and potrf workspace of one stream, created on the first task that uses it.
class StreamContext {
 public:
  explicit StreamContext(cudaStream_t stream) : stream_(stream) {
    CONVEYOR_CHECK(common::cuda_math().cublasCreate(&blas_));
    CONVEYOR_CHECK(common::cuda_math().cublasSetStream(blas_, stream));
    CONVEYOR_CHECK(common::cuda_math().cusolverDnCreate(&solver_));
    CONVEYOR_CHECK(common::cuda_math().cusolverDnSetStream(solver_, stream));
    CONVEYOR_CHECK(cudaMalloc(reinterpret_cast<void**>(&info_), sizeof(int)));
  }
  StreamContext(const StreamContext&) = delete;
  StreamContext& operator=(const StreamContext&) = delete;
  ~StreamContext() {
    // Destructors must not throw; the driver may already be shutting down at thread exit.
    if (work_) cudaFree(work_);
    if (info_) cudaFree(info_);
    if (solver_) common::cuda_math().cusolverDnDestroy(solver_);
    if (blas_) common::cuda_math().cublasDestroy(blas_);
  }

  cudaStream_t stream() const { return stream_; }
  cublasHandle_t blas() const { return blas_; }
  cusolverDnHandle_t solver() const { return solver_; }
  int* info() const { return info_; }

  /// A workspace of at least `bytes`. Growing it frees the old one only after the stream has
  /// finished with it (earlier potrf calls may still be running).
  void* workspace(std::size_t bytes) {
    if (bytes > work_bytes_) {
      if (work_) {
        CONVEYOR_CHECK(cudaStreamSynchronize(stream_));
        CONVEYOR_CHECK(cudaFree(work_));
        work_ = nullptr;
      }
      CONVEYOR_CHECK(cudaMalloc(&work_, bytes));
      work_bytes_ = bytes;
    }
    return work_;
  }

 private:
  cudaStream_t stream_;
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  int* info_ = nullptr;
  void* work_ = nullptr;
  std::size_t work_bytes_ = 0;
};

// Per thread, so looking a stream up takes no lock; a worker drives few streams, so a short vector.
StreamContext& context_for(void* stream) {
  thread_local std::vector<std::unique_ptr<StreamContext>> contexts;
  auto s = static_cast<cudaStream_t>(stream);
  for (auto& c : contexts)
    if (c->stream() == s) return *c;
  contexts.push_back(std::make_unique<StreamContext>(s));
  return *contexts.back();
}

}  // namespace

bool cuda_kernels_available() { return true; }

template <>
void cuda_potrf<float>(void* stream, int n, float* a, int lda) {
  auto& ctx = context_for(stream);
  int lwork = 0;
  CONVEYOR_CHECK(common::cuda_math().cusolverDnSpotrf_bufferSize(
      ctx.solver(), CUBLAS_FILL_MODE_LOWER, n, a, lda, &lwork));
  auto* work = static_cast<float*>(ctx.workspace(sizeof(float) * static_cast<std::size_t>(lwork)));
  CONVEYOR_CHECK(common::cuda_math().cusolverDnSpotrf(ctx.solver(), CUBLAS_FILL_MODE_LOWER, n, a,
                                                      lda, work, lwork, ctx.info()));
}
template <>
void cuda_potrf<double>(void* stream, int n, double* a, int lda) {
  auto& ctx = context_for(stream);
  int lwork = 0;
  CONVEYOR_CHECK(common::cuda_math().cusolverDnDpotrf_bufferSize(
      ctx.solver(), CUBLAS_FILL_MODE_LOWER, n, a, lda, &lwork));
  auto* work =
      static_cast<double*>(ctx.workspace(sizeof(double) * static_cast<std::size_t>(lwork)));
  CONVEYOR_CHECK(common::cuda_math().cusolverDnDpotrf(ctx.solver(), CUBLAS_FILL_MODE_LOWER, n, a,
                                                      lda, work, lwork, ctx.info()));
}

template <>
void cuda_trsm<float>(void* stream, int m, int n, const float* l, int ldl, float* b, int ldb) {
  const float one = 1.0f;
  CONVEYOR_CHECK(common::cuda_math().cublasStrsm(context_for(stream).blas(), CUBLAS_SIDE_RIGHT,
                                                 CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                                 CUBLAS_DIAG_NON_UNIT, m, n, &one, l, ldl, b, ldb));
}
template <>
void cuda_trsm<double>(void* stream, int m, int n, const double* l, int ldl, double* b, int ldb) {
  const double one = 1.0;
  CONVEYOR_CHECK(common::cuda_math().cublasDtrsm(context_for(stream).blas(), CUBLAS_SIDE_RIGHT,
                                                 CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                                 CUBLAS_DIAG_NON_UNIT, m, n, &one, l, ldl, b, ldb));
}

template <>
void cuda_syrk<float>(void* stream, int n, int k, const float* a, int lda, float* c, int ldc) {
  const float minus_one = -1.0f, one = 1.0f;
  CONVEYOR_CHECK(common::cuda_math().cublasSsyrk(context_for(stream).blas(), CUBLAS_FILL_MODE_LOWER,
                                                 CUBLAS_OP_N, n, k, &minus_one, a, lda, &one, c,
                                                 ldc));
}
template <>
void cuda_syrk<double>(void* stream, int n, int k, const double* a, int lda, double* c, int ldc) {
  const double minus_one = -1.0, one = 1.0;
  CONVEYOR_CHECK(common::cuda_math().cublasDsyrk(context_for(stream).blas(), CUBLAS_FILL_MODE_LOWER,
                                                 CUBLAS_OP_N, n, k, &minus_one, a, lda, &one, c,
                                                 ldc));
}

template <>
void cuda_gemm<float>(void* stream, int m, int n, int k, const float* a, int lda, const float* b,
                      int ldb, float* c, int ldc) {
  const float minus_one = -1.0f, one = 1.0f;
  CONVEYOR_CHECK(common::cuda_math().cublasSgemm(context_for(stream).blas(), CUBLAS_OP_N,
                                                 CUBLAS_OP_T, m, n, k, &minus_one, a, lda, b, ldb,
                                                 &one, c, ldc));
}
template <>
void cuda_gemm<double>(void* stream, int m, int n, int k, const double* a, int lda, const double* b,
                       int ldb, double* c, int ldc) {
  const double minus_one = -1.0, one = 1.0;
  CONVEYOR_CHECK(common::cuda_math().cublasDgemm(context_for(stream).blas(), CUBLAS_OP_N,
                                                 CUBLAS_OP_T, m, n, k, &minus_one, a, lda, b, ldb,
                                                 &one, c, ldc));
}

}  // namespace conveyor::apps::cholesky
