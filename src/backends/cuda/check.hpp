#pragma once
// Every CUDA runtime and cuBLAS call goes through CONVEYOR_CUDA_CHECK so that a failure becomes a
// DeviceError naming the call, the error and the source line, instead of a silently wrong
// measurement.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

namespace conveyor::backend::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

inline void check(cudaError_t error, const char* call, const char* file, int line) {
  if (error != cudaSuccess) throw_cuda_error(error, call, file, line);
}
inline void check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, call, file, line);
}

/// "cudaErrorNoDevice: no CUDA-capable device is detected"
std::string describe(cudaError_t error);

}  // namespace conveyor::backend::cuda

/// Throws conveyor::DeviceError when `call` (a cudaError_t or cublasStatus_t expression) fails.
///   CONVEYOR_CUDA_CHECK(cudaMalloc(&p, bytes));
#define CONVEYOR_CUDA_CHECK(call) \
  ::conveyor::backend::cuda::check((call), #call, __FILE__, __LINE__)
