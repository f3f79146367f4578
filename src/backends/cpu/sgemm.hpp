#pragma once
// The CPU's single-precision matrix product for the probe: OpenBLAS where the build found it, else
// a blocked loop (always built, and tested on its own, so that both paths stay correct).
#include <string_view>

namespace conveyor::backend::cpu {

/// Rows [row_begin, row_end) of C = A * B, n x n row-major; zeroes those rows of C first.
void blocked_sgemm_rows(int n, const float* a, const float* b, float* c, int row_begin,
                        int row_end);

/// True when the build links OpenBLAS and CpuProbeTarget::matmul calls cblas_sgemm.
bool have_openblas();

/// "OpenBLAS cblas_sgemm" or "blocked loop", for results and `conveyor devices`.
std::string_view sgemm_name();

}  // namespace conveyor::backend::cpu
