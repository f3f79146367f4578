#pragma once
/// The gemm the apps' OpenCL launchers build their blocked updates on: CLBlast's, or the CPU
/// devices' own (common/opencl_cpu_gemm.hpp). Included only by OpenCL launchers.
///
///   common::gemm(common::GemmPath::Cpu, kCl, queue, kernel, sizeof(double), false, true, m, n, k,
///                -1.0, {a, 0, lda}, {b, 0, ldb}, 1.0, {c, 0, ldc});   // C -= A B^T
#include <cstddef>

#include "common/opencl/opencl_calls.hpp"
#include "common/opencl_blas.hpp"

namespace conveyor::apps::common {

/// A column-major matrix inside an OpenCL buffer: offset and leading dimension in elements.
struct ClOperand {
  cl_mem mem;
  std::size_t off;
  int ld;
};

/// C (m x n) = beta C + alpha op(A) op(B), op(A) m x k and op(B) k x n, on `queue` (in order:
/// returns at once); elements of `elem_size` bytes (4 or 8); where beta is 0, C is not read.
/// GemmPath::Cpu runs the kernels of the program `sibling` was built from (which appended
/// opencl_cpu_gemm_source()) and has no A^T B^T form (no caller needs it): it throws Error, as a
/// bad size does. GemmPath::Clblast throws Error in a build without CLBlast.
void gemm(GemmPath path, const OpenclCalls& cl, cl_command_queue queue, cl_kernel sibling,
          std::size_t elem_size, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
          ClOperand a, ClOperand b, double beta, ClOperand c);

/// The CPU path alone (the CLBlast one: clblast_gemm_enqueue, common/opencl_blas.hpp).
void cpu_gemm(const OpenclCalls& cl, cl_command_queue queue, cl_kernel sibling,
              std::size_t elem_size, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
              ClOperand a, ClOperand b, double beta, ClOperand c);

}  // namespace conveyor::apps::common
