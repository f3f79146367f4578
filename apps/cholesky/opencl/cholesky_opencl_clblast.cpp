// The tile kernels through CLBlast (built when CMake found it), on the codelet's queue and buffers:
// syrk S <- S - A A^T (lower triangle), trsm B <- B L^-T (gemm goes through common::gemm).
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/opencl/clblast_calls.hpp"

namespace conveyor::apps::cholesky {
namespace {

constexpr common::ClblastCalls kBlas{"OpenCL cholesky"};

cl_mem mem(void* p) { return static_cast<cl_mem>(p); }

template <typename T>
void syrk(cl_command_queue q, int n, int k, void* a, int lda, void* c, int ldc) {
  if (n == 0 || k == 0) return;
  kBlas.check(common::clblast_syrk_lower(n, k, T(-1), mem(a), lda, T(1), mem(c), ldc, q), "syrk");
}

template <typename T>
void trsm(cl_command_queue q, int m, int n, void* l, int ldl, void* b, int ldb) {
  if (m == 0 || n == 0) return;
  kBlas.check(common::clblast_trsm_right_lower_t(m, n, T(1), mem(l), ldl, mem(b), ldb, q), "trsm");
}

}  // namespace

void clblast_syrk_enqueue(void* queue, std::size_t elem_size, int n, int k, void* a, int lda,
                          void* c, int ldc) {
  auto q = static_cast<cl_command_queue>(queue);
  if (elem_size == sizeof(float))
    syrk<float>(q, n, k, a, lda, c, ldc);
  else
    syrk<double>(q, n, k, a, lda, c, ldc);
}

void clblast_trsm_enqueue(void* queue, std::size_t elem_size, int m, int n, void* l, int ldl,
                          void* b, int ldb) {
  auto q = static_cast<cl_command_queue>(queue);
  if (elem_size == sizeof(float))
    trsm<float>(q, m, n, l, ldl, b, ldb);
  else
    trsm<double>(q, m, n, l, ldl, b, ldb);
}

}  // namespace conveyor::apps::cholesky
