#pragma once
/// OpenCL tile kernel of the block Cholesky factorisation: gemm, C <- C - A B^T (column-major), the
/// task the seed offloads. One source for both precisions: build it with opencl_gemm_options().
///
///   program.source = opencl_gemm_source();  program.kernel = kOpenclGemmKernel;
///   program.options = opencl_gemm_options(/*double_precision=*/true);
///   opencl_gemm_enqueue(queue, kernel, m, n, k, a, lda, b, ldb, c, ldc);   // returns at once
#include <string>
#include <string_view>

namespace conveyor::apps::cholesky {

inline constexpr const char* kOpenclGemmKernel = "tile_gemm_nt";
/// The variant the launcher uses on CPU devices (same program, same arguments).
inline constexpr const char* kOpenclGemmCpuKernel = "tile_gemm_nt_cpu";
/// Work-items per work-group the kernel is written for (its local size is fixed at 32 x 8).
inline constexpr int kOpenclGemmGroupSize = 256;

/// Which kernel opencl_gemm_enqueue runs. Auto: the barrier-free one on CPU devices, the
/// local-memory one elsewhere. The others force one (tests run both on PoCL).
enum class OpenclGemmVariant { Auto, LocalMemory, NoBarrier };
void set_opencl_gemm_variant(OpenclGemmVariant variant);
OpenclGemmVariant opencl_gemm_variant();

/// True when Conveyor was built with OpenCL; opencl_gemm_enqueue throws Error otherwise.
bool opencl_kernels_available();

/// The OpenCL C source. Double precision needs cl_khr_fp64; without it the build fails with a
/// message saying so.
std::string_view opencl_gemm_source();
/// "-DREAL=float" or "-DREAL=double -DREAL_IS_DOUBLE=1".
std::string opencl_gemm_options(bool double_precision);

/// Sets the arguments of `kernel` (a cl_kernel built from opencl_gemm_source()) and enqueues it on
/// `queue` (a cl_command_queue); `a`, `b`, `c` are cl_mem. Does not wait. On a CPU device it runs
/// kOpenclGemmCpuKernel from the same program instead (created once per thread and program).
void opencl_gemm_enqueue(void* queue, void* kernel, int m, int n, int k, void* a, int lda, void* b,
                         int ldb, void* c, int ldc);

}  // namespace conveyor::apps::cholesky
