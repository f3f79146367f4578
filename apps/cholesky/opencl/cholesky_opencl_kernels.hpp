#pragma once
/// OpenCL tile kernels of the block Cholesky factorisation (column-major): gemm, C <- C - A B^T,
/// the task the seed offloads; syrk and trsm (potrf has none). One source for both precisions:
/// build it with opencl_gemm_options().
///
///   program.source = opencl_gemm_source();  program.kernel = kOpenclGemmKernel;
///   program.options = opencl_gemm_options(/*double_precision=*/true);
///   opencl_gemm_enqueue(queue, kernel, sizeof(double), m, n, k, a, lda, b, ldb, c, ldc);
#include <cstddef>
#include <string>
#include <string_view>

namespace conveyor::apps::cholesky {

inline constexpr const char* kOpenclGemmKernel = "tile_gemm_nt";
/// The own syrk and trsm kernels, in the same program (their codelets name them).
inline constexpr const char* kOpenclSyrkKernel = "tile_syrk_ln";
inline constexpr const char* kOpenclTrsmKernel = "tile_trsm_rlt";
/// Work-items per work-group the kernel is written for (its local size is fixed at 32 x 8).
inline constexpr int kOpenclGemmGroupSize = 256;

/// Which kernel opencl_gemm_enqueue runs. Auto: CLBlast's gemm where common::use_clblast says so
/// (devices other than CPUs, kClblastGemmByDefault), else the register-blocked gemm of
/// common/opencl_cpu_gemm.hpp on CPU devices, the local-memory kernel elsewhere. The others force
/// one of the own kernels (tests run both on PoCL).
enum class OpenclGemmVariant { Auto, LocalMemory, RegisterBlocked };
void set_opencl_gemm_variant(OpenclGemmVariant variant);
OpenclGemmVariant opencl_gemm_variant();

/// Whether the gemm runs through CLBlast by default (CONVEYOR_OPENCL_BLAS=auto) on devices other
/// than CPUs; on CPU devices the register-blocked gemm measured faster than CLBlast's on PoCL
/// (docs/results/clblast.md) and is the default there.
inline constexpr bool kClblastGemmByDefault = true;

/// Whether syrk and trsm run through CLBlast by default (CONVEYOR_OPENCL_BLAS=auto): each the
/// faster of the two on PoCL at the default tile (docs/results/clblast.md).
inline constexpr bool kClblastSyrkByDefault = true;
inline constexpr bool kClblastTrsmByDefault = true;

/// True when Conveyor was built with OpenCL; the enqueue functions throw Error otherwise.
bool opencl_kernels_available();

/// The OpenCL C source, the CPU gemm's (common/opencl_cpu_gemm.hpp) appended. Double precision
/// needs cl_khr_fp64; without it the build fails with a message saying so.
std::string_view opencl_gemm_source();
/// "-DREAL=float" or "-DREAL=double -DREAL_IS_DOUBLE=1".
std::string opencl_gemm_options(bool double_precision);

/// Sets the arguments of `kernel` (a cl_kernel built from opencl_gemm_source()) and enqueues it on
/// `queue` (a cl_command_queue); `a`, `b`, `c` are cl_mem of elements of `elem_size` bytes. Does
/// not wait. On a CPU device it runs the register-blocked gemm from the same program instead
/// (created once per thread and program); through CLBlast, CLBlast's gemm on the same queue and
/// buffers.
void opencl_gemm_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int k,
                         void* a, int lda, void* b, int ldb, void* c, int ldc);
/// syrk, S <- S - A A^T on the lower triangle of the n x n tile s (a: n x k), with `kernel`
/// built from the same program as the gemm's (kOpenclSyrkKernel) or through CLBlast.
void opencl_syrk_enqueue(void* queue, void* kernel, std::size_t elem_size, int n, int k, void* a,
                         int lda, void* s, int lds);
/// trsm, B <- B L^-T for the m x n tile b and the n x n lower triangle l (kOpenclTrsmKernel, or
/// through CLBlast).
void opencl_trsm_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, void* l,
                         int ldl, void* b, int ldb);

/// syrk and trsm through CLBlast (cholesky_opencl_clblast.cpp; without CLBlast they throw).
void clblast_syrk_enqueue(void* queue, std::size_t elem_size, int n, int k, void* a, int lda,
                          void* s, int lds);
void clblast_trsm_enqueue(void* queue, std::size_t elem_size, int m, int n, void* l, int ldl,
                          void* b, int ldb);

}  // namespace conveyor::apps::cholesky
