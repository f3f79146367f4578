// The gemm tile kernel through CLBlast (built when CMake found it), on the codelet's queue and
// buffers: C <- C - A B^T.
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/opencl/clblast_calls.hpp"

namespace conveyor::apps::cholesky {
namespace {

constexpr common::ClblastCalls kBlas{"OpenCL gemm"};

template <typename T>
void gemm(cl_command_queue q, int m, int n, int k, void* a, int lda, void* b, int ldb, void* c,
          int ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  kBlas.check(common::clblast_gemm(CLBlastTransposeNo, CLBlastTransposeYes, m, n, k, T(-1),
                                   static_cast<cl_mem>(a), 0, lda, static_cast<cl_mem>(b), 0, ldb,
                                   T(1), static_cast<cl_mem>(c), 0, ldc, q),
              "gemm");
}

}  // namespace

void clblast_gemm_enqueue(void* queue, std::size_t elem_size, int m, int n, int k, void* a, int lda,
                          void* b, int ldb, void* c, int ldc) {
  auto q = static_cast<cl_command_queue>(queue);
  if (elem_size == sizeof(float))
    gemm<float>(q, m, n, k, a, lda, b, ldb, c, ldc);
  else
    gemm<double>(q, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace conveyor::apps::cholesky
