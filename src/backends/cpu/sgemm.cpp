#include "sgemm.hpp"

#include <algorithm>
#include <cstddef>

namespace conveyor::backend::cpu {
namespace {

// A panel of kBlockK rows of B, kBlockJ floats wide (128 KiB), stays in L2 while every row of this
// share of C streams over it.
constexpr int kBlockK = 128;
constexpr int kBlockJ = 256;

}  // namespace

// One copy per instruction set where the compiler supports it (GCC/Clang on x86-64), so that the
// CPU uses the vector width of this machine, as the OpenCL driver's kernel compiler does, without
// -march=native on the whole build.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void blocked_sgemm_rows(int n, const float* __restrict a, const float* __restrict b,
                        float* __restrict c, int row_begin, int row_end) {
  std::fill(c + static_cast<std::size_t>(row_begin) * n, c + static_cast<std::size_t>(row_end) * n,
            0.0f);
  for (int jj = 0; jj < n; jj += kBlockJ) {
    const int j_end = std::min(n, jj + kBlockJ);
    for (int kk = 0; kk < n; kk += kBlockK) {
      const int k_end = std::min(n, kk + kBlockK);
      for (int i = row_begin; i < row_end; ++i) {
        float* __restrict c_row = c + static_cast<std::size_t>(i) * n;
        const float* a_row = a + static_cast<std::size_t>(i) * n;
        for (int k = kk; k < k_end; ++k) {
          const float aik = a_row[k];
          const float* __restrict b_row = b + static_cast<std::size_t>(k) * n;
          for (int j = jj; j < j_end; ++j) c_row[j] += aik * b_row[j];
        }
      }
    }
  }
}

bool have_openblas() {
#ifdef CONVEYOR_HAVE_OPENBLAS
  return true;
#else
  return false;
#endif
}

std::string_view sgemm_name() { return have_openblas() ? "OpenBLAS cblas_sgemm" : "blocked loop"; }

}  // namespace conveyor::backend::cpu
