#include "stencil/cpu_kernel.hpp"

#include <algorithm>

namespace conveyor::apps::stencil {

void cpu_jacobi_tile(const Coefficients& c, double* out, std::size_t out_ld, const TileView& in,
                     const TileView& north, const TileView& south, const TileView& west,
                     const TileView& east) {
  const std::size_t rows = in.rows, cols = in.cols;
  for (std::size_t col = 0; col < cols; ++col) {
    const double* x = in.ptr + col * in.ld;
    double* __restrict o = out + col * out_ld;
    // A column on the grid's left or right edge is boundary: kept as it is.
    if ((col == 0 && !west) || (col + 1 == cols && !east)) {
      std::copy_n(x, rows, o);
      continue;
    }
    const double* left = col > 0 ? x - in.ld : west.ptr + (west.cols - 1) * west.ld;
    const double* right = col + 1 < cols ? x + in.ld : east.ptr;
    // The first and last rows read across into the tiles above and below (or are boundary);
    // handled one by one so that the rows between run as one branch-free loop the compiler
    // vectorises.
    auto edge_row = [&](std::size_t r) {
      if ((r == 0 && !north) || (r + 1 == rows && !south)) return x[r];
      double up = r > 0 ? x[r - 1] : north.ptr[(north.rows - 1) + col * north.ld];
      double down = r + 1 < rows ? x[r + 1] : south.ptr[col * south.ld];
      return point(c, x[r], up, down, left[r], right[r]);
    };
    o[0] = edge_row(0);
    if (rows > 1) o[rows - 1] = edge_row(rows - 1);
    for (std::size_t r = 1; r + 1 < rows; ++r)
      o[r] = point(c, x[r], x[r - 1], x[r + 1], left[r], right[r]);
  }
}

}  // namespace conveyor::apps::stencil
