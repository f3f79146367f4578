#pragma once
/// The CPU implementation of one tile of one sweep. A tile's cells on the grid's outer ring are
/// boundary cells and are copied unchanged; the others take point() of their four neighbours,
/// read from the tile itself or, on its edges, from the neighbouring tiles.
///
///   TileView in{ptr, rows, cols, ld}, north{...}, none{};   // absent neighbour: ptr == nullptr
///   cpu_jacobi_tile(coeffs, out, in, north, south, west, east);
#include <cstddef>

#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// A column-major tile in host memory (element (r, c) at ptr[r + c * ld]); ptr == nullptr: the
/// neighbour does not exist because the tile lies on that edge of the grid.
struct TileView {
  const double* ptr = nullptr;
  std::size_t rows = 0, cols = 0, ld = 0;
  explicit operator bool() const { return ptr != nullptr; }
};

/// Writes the next values of tile `in` into `out` (same shape, its own ld). North is the tile
/// above (rows - 1), south below (rows + 1), west to the left (columns - 1), east to the right.
/// A missing neighbour makes that edge row or column a boundary, copied as it is.
void cpu_jacobi_tile(const Coefficients& c, double* out, std::size_t out_ld, const TileView& in,
                     const TileView& north, const TileView& south, const TileView& west,
                     const TileView& east);

}  // namespace conveyor::apps::stencil
