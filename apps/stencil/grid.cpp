#include "stencil/grid.hpp"

#include <algorithm>
#include <utility>

#include "common/hashed_entries.hpp"
#include "common/parallel_for.hpp"

namespace conveyor::apps::stencil {

double initial_value(int row, int col) {
  return common::hashed_unit(
      common::position_key(static_cast<std::uint64_t>(col), static_cast<std::uint64_t>(row)));
}

void fill_initial(double* grid, int n) {
  common::parallel_for(n, [&](long col) {
    double* g = grid + col * n;
    for (int r = 0; r < n; ++r) g[r] = initial_value(r, static_cast<int>(col));
  });
}

void reference_sweeps(double* grid, double* scratch, int n, int sweeps, const Coefficients& c) {
  const long ld = n;
  double* in = grid;
  double* out = scratch;
  for (int s = 0; s < sweeps; ++s) {
    for (long col = 0; col < n; ++col)
      for (long r = 0; r < n; ++r) {
        const long at = r + col * ld;
        out[at] = (r == 0 || r == n - 1 || col == 0 || col == n - 1)
                      ? in[at]
                      : point(c, in[at], in[at - 1], in[at + 1], in[at - ld], in[at + ld]);
      }
    std::swap(in, out);
  }
  if (in != grid) std::copy_n(in, static_cast<long>(n) * n, grid);
}

double sweep_bytes(int n) { return 2.0 * sizeof(double) * static_cast<double>(n) * n; }

}  // namespace conveyor::apps::stencil
