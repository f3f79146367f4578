#pragma once
// cuBLAS for the CUDA backend (the probe's gemm, status names in errors), opened when the probe
// first needs it instead of linked: linked, cuBLAS (with the cuBLASLt it loads) costs every
// process about 0.15 s of CPU time at start, CPU-only runs and `conveyor --help` included.
//
//   CONVEYOR_CUDA_CHECK(cublas_calls().cublasSgemm(handle, ...));   // the call as cuBLAS names it
#include <cublas_v2.h>

namespace conveyor::backend::cuda {

// cuBLAS's names are macros for their _v2 symbols (cublasCreate is cublasCreate_v2): members and
// symbols take the expanded names, so call sites keep cuBLAS's.
// clang-format off
#define CONVEYOR_BACKEND_CUBLAS_CALLS(X)                                                      \
  X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSgemm)                          \
  X(cublasGetStatusName) X(cublasGetStatusString)
// clang-format on

struct CublasCalls {
#define CONVEYOR_CUBLAS_MEMBER(name) decltype(&::name) name = nullptr;
  CONVEYOR_BACKEND_CUBLAS_CALLS(CONVEYOR_CUBLAS_MEMBER)
#undef CONVEYOR_CUBLAS_MEMBER
};

/// The calls, resolved by the first caller (thread-safe); throws conveyor::DeviceError naming the
/// library and dlerror's reason when cuBLAS cannot be opened.
const CublasCalls& cublas_calls();

}  // namespace conveyor::backend::cuda
