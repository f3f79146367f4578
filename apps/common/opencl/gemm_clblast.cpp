// clblast_gemm_enqueue (common/opencl_blas.hpp), built with CLBlast.
#include "common/opencl/clblast_calls.hpp"
#include "common/opencl_blas.hpp"

namespace conveyor::apps::common {
namespace {

template <typename T>
CLBlastStatusCode typed(cl_command_queue queue, bool trans_a, bool trans_b, int m, int n, int k,
                        double alpha, void* a, std::size_t a_off, int lda, void* b,
                        std::size_t b_off, int ldb, double beta, void* c, std::size_t c_off,
                        int ldc) {
  auto op = [](bool t) { return t ? CLBlastTransposeYes : CLBlastTransposeNo; };
  return clblast_gemm(op(trans_a), op(trans_b), m, n, k, T(alpha), static_cast<cl_mem>(a), a_off,
                      lda, static_cast<cl_mem>(b), b_off, ldb, T(beta), static_cast<cl_mem>(c),
                      c_off, ldc, queue);
}

}  // namespace

void clblast_gemm_enqueue(const char* who, void* queue, std::size_t elem_size, bool trans_a,
                          bool trans_b, int m, int n, int k, double alpha, void* a,
                          std::size_t a_off, int lda, void* b, std::size_t b_off, int ldb,
                          double beta, void* c, std::size_t c_off, int ldc) {
  if (m == 0 || n == 0 || (k == 0 && beta == 1.0)) return;
  auto q = static_cast<cl_command_queue>(queue);
  const ClblastCalls blas{who};
  blas.check(elem_size == sizeof(float)
                 ? typed<float>(q, trans_a, trans_b, m, n, k, alpha, a, a_off, lda, b, b_off, ldb,
                                beta, c, c_off, ldc)
                 : typed<double>(q, trans_a, trans_b, m, n, k, alpha, a, a_off, lda, b, b_off, ldb,
                                 beta, c, c_off, ldc),
             "gemm");
}

}  // namespace conveyor::apps::common
