#include "stencil/cpu_kernel.hpp"

#include <algorithm>

namespace conveyor::apps::stencil {

void cpu_jacobi_tile(const Coefficients& c, double* out, std::size_t out_ld, const TileView& in,
                     const Halo& halo, const EdgeStrips& edges) {
  const std::size_t rows = in.rows, cols = in.cols;
  for (std::size_t col = 0; col < cols; ++col) {
    const double* x = in.ptr + col * in.ld;
    double* __restrict o = out + col * out_ld;
    // A column on the grid's left or right edge is boundary: kept as it is.
    if ((col == 0 && !halo.west) || (col + 1 == cols && !halo.east)) {
      std::copy_n(x, rows, o);
    } else {
      const double* left = col > 0 ? x - in.ld : halo.west;
      const double* right = col + 1 < cols ? x + in.ld : halo.east;
      // The first and last rows read the strips above and below (or are boundary); handled one by
      // one so that the rows between run as one branch-free loop the compiler vectorises.
      auto edge_row = [&](std::size_t r) {
        if ((r == 0 && !halo.north) || (r + 1 == rows && !halo.south)) return x[r];
        double up = r > 0 ? x[r - 1] : halo.north[col];
        double down = r + 1 < rows ? x[r + 1] : halo.south[col];
        return point(c, x[r], up, down, left[r], right[r]);
      };
      o[0] = edge_row(0);
      if (rows > 1) o[rows - 1] = edge_row(rows - 1);
      for (std::size_t r = 1; r + 1 < rows; ++r)
        o[r] = point(c, x[r], x[r - 1], x[r + 1], left[r], right[r]);
    }
    // The output's edges, for the neighbours' tasks of the next sweep.
    if (edges.north) edges.north[col] = o[0];
    if (edges.south) edges.south[col] = o[rows - 1];
    if (col == 0 && edges.west) std::copy_n(o, rows, edges.west);
    if (col + 1 == cols && edges.east) std::copy_n(o, rows, edges.east);
  }
}

}  // namespace conveyor::apps::stencil
