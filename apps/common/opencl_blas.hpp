#pragma once
/// Which code runs the BLAS-shaped parts of the apps' OpenCL kernels: CLBlast (when Conveyor was
/// built with it, CMake option CONVEYOR_WITH_CLBLAST) or the apps' own OpenCL kernels. Auto, the
/// default, takes for each kernel whichever measured faster on PoCL (docs/results/clblast.md);
/// the environment variable CONVEYOR_OPENCL_BLAS=auto|own|clblast, or set_opencl_blas, forces one.
///
///   if (common::use_clblast(kClblastUpdatesByDefault)) ...   // else the own kernel
#include <cstddef>
#include <string_view>

namespace conveyor::apps::common {

enum class OpenclBlas { Auto, Own, Clblast };

/// True when Conveyor was built with CLBlast.
bool clblast_available();

/// "auto", "own" or "clblast"; throws UsageError otherwise, or for "clblast" without CLBlast.
OpenclBlas parse_opencl_blas(std::string_view text);
/// The choice in force: set_opencl_blas's, else CONVEYOR_OPENCL_BLAS's (read once; a bad value
/// throws UsageError), else Auto.
OpenclBlas opencl_blas();
/// Overrides the choice for the whole process (tests run both); throws UsageError for Clblast in a
/// build without it.
void set_opencl_blas(OpenclBlas choice);

/// Which gemm an OpenCL launcher's blocked code calls (common/opencl/gemm.hpp): CLBlast's, or the
/// register-blocked kernels for CPU devices (common/opencl_cpu_gemm.hpp).
enum class GemmPath { Clblast, Cpu };

/// C = beta C + alpha op(A) op(B) through CLBlast on `queue` (a cl_command_queue), A, B and C in
/// cl_mem buffers at offsets, with leading dimensions, in elements of `elem_size` bytes; returns
/// once enqueued. Errors (DeviceError from CLBlast; Error in a build without it) start with `who`.
void clblast_gemm_enqueue(const char* who, void* queue, std::size_t elem_size, bool trans_a,
                          bool trans_b, int m, int n, int k, double alpha, void* a,
                          std::size_t a_off, int lda, void* b, std::size_t b_off, int ldb,
                          double beta, void* c, std::size_t c_off, int ldc);

/// Whether a kernel whose measured default is `auto_default` runs through CLBlast now.
inline bool use_clblast(bool auto_default) {
  switch (opencl_blas()) {
    case OpenclBlas::Own:
      return false;
    case OpenclBlas::Clblast:
      return true;
    case OpenclBlas::Auto:
      break;
  }
  return auto_default && clblast_available();
}

}  // namespace conveyor::apps::common
