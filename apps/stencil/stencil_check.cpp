#include "stencil/stencil_check.hpp"

#include <cmath>

namespace conveyor::apps::stencil {

Comparison compare_grids(const double* result, const double* reference, int n) {
  Comparison c;
  const long cells = static_cast<long>(n) * n;
  for (long k = 0; k < cells; ++k) {
    if (result[k] == reference[k]) continue;  // NaN != NaN: a NaN is a mismatch too
    ++c.mismatches;
    double d = std::fabs(result[k] - reference[k]);
    if (!(d <= c.max_abs_diff)) c.max_abs_diff = d;
  }
  return c;
}

}  // namespace conveyor::apps::stencil
