#pragma once
// cuBLAS and cuSOLVER for the apps' CUDA tile kernels, opened when the first CUDA task needs them
// instead of linked: linked, the two (with the cuBLASLt, cuSPARSE and nvJitLink they load) cost
// every process that links the apps about 0.15 s of CPU time at start, CPU-only runs, tests and
// `conveyor --help` included. Included by .cu files only.
//
//   CONVEYOR_CHECK(cuda_math().cublasDgemm(handle, ...));   // the call as cuBLAS names it
#include <cublas_v2.h>
#include <cusolverDn.h>

namespace conveyor::apps::common {

// Every call the apps make. cuBLAS's names are macros for their _v2 symbols (cublasCreate is
// cublasCreate_v2): members and symbols take the expanded names, so call sites keep cuBLAS's.
// clang-format off
#define CONVEYOR_CUBLAS_CALLS(X)                                                              \
  X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSgemm) X(cublasDgemm)           \
  X(cublasSgemmStridedBatched) X(cublasDgemmStridedBatched) X(cublasStrmm) X(cublasDtrmm)     \
  X(cublasSgeam) X(cublasDgeam) X(cublasStrsm) X(cublasDtrsm) X(cublasSsyrk) X(cublasDsyrk)
#define CONVEYOR_CUSOLVER_CALLS(X)                                                            \
  X(cusolverDnCreate) X(cusolverDnDestroy) X(cusolverDnSetStream)                             \
  X(cusolverDnSgeqrf_bufferSize) X(cusolverDnDgeqrf_bufferSize) X(cusolverDnSgeqrf)           \
  X(cusolverDnDgeqrf) X(cusolverDnSpotrf_bufferSize) X(cusolverDnDpotrf_bufferSize)           \
  X(cusolverDnSpotrf) X(cusolverDnDpotrf)
// clang-format on

struct CudaMath {
#define CONVEYOR_CUDA_MATH_MEMBER(name) decltype(&::name) name = nullptr;
  CONVEYOR_CUBLAS_CALLS(CONVEYOR_CUDA_MATH_MEMBER)
  CONVEYOR_CUSOLVER_CALLS(CONVEYOR_CUDA_MATH_MEMBER)
#undef CONVEYOR_CUDA_MATH_MEMBER
};

/// The calls, resolved by the first caller (thread-safe); throws conveyor::DeviceError naming the
/// library and dlerror's reason when cuBLAS or cuSOLVER cannot be opened.
const CudaMath& cuda_math();

}  // namespace conveyor::apps::common
