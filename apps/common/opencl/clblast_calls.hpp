#pragma once
/// What the apps' CLBlast launchers share (included only by their *_clblast.cpp files, which are
/// built only with CLBlast): a status check that throws DeviceError naming the app and the call,
/// and the C API's routines overloaded on the element type, so that one template serves both
/// precisions.
///
///   constexpr common::ClblastCalls kBlas{"OpenCL qr"};
///   kBlas.check(common::clblast_gemm<T>(...), "gemm");
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <clblast_c.h>

#include <string>

#include "conveyor/error.hpp"

namespace conveyor::apps::common {

struct ClblastCalls {
  const char* who;  ///< "OpenCL qr": the start of every error message

  /// Throws DeviceError("WHO: CLBlast WHAT failed with status STATUS") unless it succeeded.
  void check(CLBlastStatusCode status, const char* what) const {
    if (status != CLBlastSuccess)
      throw DeviceError(std::string(who) + ": CLBlast " + what + " failed with status " +
                        std::to_string(static_cast<int>(status)));
  }
};

// Column-major throughout; offsets and leading dimensions in elements, as CLBlast takes them.
inline CLBlastStatusCode clblast_gemm(CLBlastTranspose ta, CLBlastTranspose tb, size_t m, size_t n,
                                      size_t k, float alpha, cl_mem a, size_t a_off, size_t lda,
                                      cl_mem b, size_t b_off, size_t ldb, float beta, cl_mem c,
                                      size_t c_off, size_t ldc, cl_command_queue q) {
  return CLBlastSgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb,
                      beta, c, c_off, ldc, &q, nullptr);
}
inline CLBlastStatusCode clblast_gemm(CLBlastTranspose ta, CLBlastTranspose tb, size_t m, size_t n,
                                      size_t k, double alpha, cl_mem a, size_t a_off, size_t lda,
                                      cl_mem b, size_t b_off, size_t ldb, double beta, cl_mem c,
                                      size_t c_off, size_t ldc, cl_command_queue q) {
  return CLBlastDgemm(CLBlastLayoutColMajor, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb,
                      beta, c, c_off, ldc, &q, nullptr);
}

// C <- alpha A A^T + beta C on C's lower triangle (A n x k, not transposed).
inline CLBlastStatusCode clblast_syrk_lower(size_t n, size_t k, float alpha, cl_mem a, size_t lda,
                                            float beta, cl_mem c, size_t ldc, cl_command_queue q) {
  return CLBlastSsyrk(CLBlastLayoutColMajor, CLBlastTriangleLower, CLBlastTransposeNo, n, k, alpha,
                      a, 0, lda, beta, c, 0, ldc, &q, nullptr);
}
inline CLBlastStatusCode clblast_syrk_lower(size_t n, size_t k, double alpha, cl_mem a, size_t lda,
                                            double beta, cl_mem c, size_t ldc, cl_command_queue q) {
  return CLBlastDsyrk(CLBlastLayoutColMajor, CLBlastTriangleLower, CLBlastTransposeNo, n, k, alpha,
                      a, 0, lda, beta, c, 0, ldc, &q, nullptr);
}

// B (m x n) <- alpha B L^-T, L lower triangular with its diagonal (n x n).
inline CLBlastStatusCode clblast_trsm_right_lower_t(size_t m, size_t n, float alpha, cl_mem l,
                                                    size_t ldl, cl_mem b, size_t ldb,
                                                    cl_command_queue q) {
  return CLBlastStrsm(CLBlastLayoutColMajor, CLBlastSideRight, CLBlastTriangleLower,
                      CLBlastTransposeYes, CLBlastDiagonalNonUnit, m, n, alpha, l, 0, ldl, b, 0,
                      ldb, &q, nullptr);
}
inline CLBlastStatusCode clblast_trsm_right_lower_t(size_t m, size_t n, double alpha, cl_mem l,
                                                    size_t ldl, cl_mem b, size_t ldb,
                                                    cl_command_queue q) {
  return CLBlastDtrsm(CLBlastLayoutColMajor, CLBlastSideRight, CLBlastTriangleLower,
                      CLBlastTransposeYes, CLBlastDiagonalNonUnit, m, n, alpha, l, 0, ldl, b, 0,
                      ldb, &q, nullptr);
}

}  // namespace conveyor::apps::common
