#pragma once
/// A gemm for CPU OpenCL devices (PoCL), C = beta C + alpha op(A) op(B), whose work-items are
/// register-blocked micro-kernels in OpenCL's vector types (the reasons are in
/// opencl/cpu_gemm_source.cpp): on PoCL it runs several times faster than CLBlast's untuned kernels
/// and than the apps' earlier one-row-per-work-item kernels (docs/results/clblast.md). The apps
/// append its source to their OpenCL programs, after their own, which must define REAL (and
/// REAL_IS_DOUBLE with cl_khr_fp64 enabled for double); their launchers then enqueue it through
/// common::cpu_gemm (opencl/cpu_gemm.hpp), which finds its kernels beside the codelet's.
///
///   program.source = std::string(own_source) + std::string(common::opencl_cpu_gemm_source());
///   common::cpu_gemm(kCl, queue, kernel, sizeof(double), false, true, m, n, k,
///                    -1.0, {a, 0, lda}, {b, 0, ldb}, 1.0, {c, 0, ldc});   // C -= A B^T
#include <cstddef>
#include <string_view>

namespace conveyor::apps::common {

/// The OpenCL C source of the kernels cpu_gemm_n (op(A) = A; op(B) = B or B^T) and cpu_gemm_tn
/// (A^T B). Plain text, present in every build.
std::string_view opencl_cpu_gemm_source();

/// common::cpu_gemm (opencl/gemm.hpp) with OpenCL's types as void*, for callers built without the
/// OpenCL headers (the tests): `queue` a cl_command_queue, `kernel` a cl_kernel of a program that
/// holds the source above, `a`, `b`, `c` cl_mem with offsets and leading dimensions in elements.
/// In a build without OpenCL it throws Error.
void opencl_cpu_gemm_enqueue(void* queue, void* kernel, std::size_t elem_size, bool trans_a,
                             bool trans_b, int m, int n, int k, double alpha, void* a,
                             std::size_t a_off, int lda, void* b, std::size_t b_off, int ldb,
                             double beta, void* c, std::size_t c_off, int ldc);

}  // namespace conveyor::apps::common
