// Enqueues the OpenCL tile kernels (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/opencl/gemm.hpp"
#include "common/opencl/opencl_calls.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

constexpr common::OpenclCalls kCl{"OpenCL gemm"};
constexpr common::OpenclCalls kClSyrk{"OpenCL syrk"};
constexpr common::OpenclCalls kClTrsm{"OpenCL trsm"};

cl_kernel checked(void* kernel, const char* what) {
  if (!kernel) throw Error(std::string(what) + ": the codelet has no kernel (program not built)");
  return static_cast<cl_kernel>(kernel);
}

}  // namespace

bool opencl_kernels_available() { return true; }

void opencl_gemm_enqueue(void* queue, void* kernel_ptr, std::size_t elem_size, int m, int n, int k,
                         void* a, int lda, void* b, int ldb, void* c, int ldc) {
  cl_kernel kernel = checked(kernel_ptr, kCl.who);
  auto q = static_cast<cl_command_queue>(queue);
  // Whether the queue feeds a CPU device: looked up once per thread, so that a launch costs no
  // query and no clCreateKernel after the first.
  const bool cpu = common::opencl_kernel_cache().is_cpu(kCl, q);
  OpenclGemmVariant variant = opencl_gemm_variant();
  const bool clblast =
      variant == OpenclGemmVariant::Auto && common::use_clblast(!cpu && kClblastGemmByDefault);
  if (variant == OpenclGemmVariant::Auto)
    variant = cpu ? OpenclGemmVariant::RegisterBlocked : OpenclGemmVariant::LocalMemory;
  if (clblast || variant == OpenclGemmVariant::RegisterBlocked)
    return common::gemm(clblast ? common::GemmPath::Clblast : common::GemmPath::Cpu, kCl, q, kernel,
                        elem_size, false, true, m, n, k, -1.0, {static_cast<cl_mem>(a), 0, lda},
                        {static_cast<cl_mem>(b), 0, ldb}, 1.0, {static_cast<cl_mem>(c), 0, ldc});
  kCl.arg(kernel, 0, cl_int{m});
  kCl.arg(kernel, 1, cl_int{n});
  kCl.arg(kernel, 2, cl_int{k});
  kCl.arg(kernel, 3, static_cast<cl_mem>(a));
  kCl.arg(kernel, 4, cl_int{lda});
  kCl.arg(kernel, 5, static_cast<cl_mem>(b));
  kCl.arg(kernel, 6, cl_int{ldb});
  kCl.arg(kernel, 7, static_cast<cl_mem>(c));
  kCl.arg(kernel, 8, cl_int{ldc});
  // 32 x 32 blocks of C per group of 32 x 8 work-items.
  std::size_t rows = static_cast<std::size_t>((m + 31) / 32) * 32;
  std::size_t local[2] = {32, 8};
  std::size_t global[2] = {rows, static_cast<std::size_t>((n + 31) / 32) * 8};
  kCl.check(clEnqueueNDRangeKernel(q, kernel, 2, nullptr, global, local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

void opencl_syrk_enqueue(void* queue, void* kernel_ptr, std::size_t elem_size, int n, int k,
                         void* a, int lda, void* s, int lds) {
  if (common::use_clblast(kClblastSyrkByDefault))
    return clblast_syrk_enqueue(queue, elem_size, n, k, a, lda, s, lds);
  if (n == 0) return;
  cl_kernel kernel = checked(kernel_ptr, kClSyrk.who);
  kClSyrk.arg(kernel, 0, cl_int{n});
  kClSyrk.arg(kernel, 1, cl_int{k});
  kClSyrk.arg(kernel, 2, static_cast<cl_mem>(a));
  kClSyrk.arg(kernel, 3, cl_int{lda});
  kClSyrk.arg(kernel, 4, static_cast<cl_mem>(s));
  kClSyrk.arg(kernel, 5, cl_int{lds});
  // 32 rows x 8 columns per group of 32 work-items.
  std::size_t local[2] = {32, 1};
  std::size_t global[2] = {static_cast<std::size_t>((n + 31) / 32) * 32,
                           static_cast<std::size_t>((n + 7) / 8)};
  kClSyrk.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), kernel, 2, nullptr,
                                       global, local, 0, nullptr, nullptr),
                "clEnqueueNDRangeKernel");
}

void opencl_trsm_enqueue(void* queue, void* kernel_ptr, std::size_t elem_size, int m, int n,
                         void* l, int ldl, void* b, int ldb) {
  if (common::use_clblast(kClblastTrsmByDefault))
    return clblast_trsm_enqueue(queue, elem_size, m, n, l, ldl, b, ldb);
  if (m == 0) return;
  cl_kernel kernel = checked(kernel_ptr, kClTrsm.who);
  kClTrsm.arg(kernel, 0, cl_int{m});
  kClTrsm.arg(kernel, 1, cl_int{n});
  kClTrsm.arg(kernel, 2, static_cast<cl_mem>(l));
  kClTrsm.arg(kernel, 3, cl_int{ldl});
  kClTrsm.arg(kernel, 4, static_cast<cl_mem>(b));
  kClTrsm.arg(kernel, 5, cl_int{ldb});
  // One work-item per row of B, in groups of 32.
  std::size_t local = 32;
  std::size_t global = static_cast<std::size_t>((m + 31) / 32) * 32;
  kClTrsm.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), kernel, 1, nullptr,
                                       &global, &local, 0, nullptr, nullptr),
                "clEnqueueNDRangeKernel");
}

}  // namespace conveyor::apps::cholesky
