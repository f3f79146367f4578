#pragma once
/// The CPU implementation of one tile of one sweep. A tile's cells on the grid's outer ring are
/// boundary cells and are copied unchanged; the others take point() of their four neighbours, read
/// from the tile itself or, on its edges, from the neighbours' halo strips (halo.hpp). The tile's
/// own edge strips of the output are written with it, for the next sweep's neighbours.
///
///   TileView in{ptr, rows, cols, ld};
///   Halo halo{north_last_row, nullptr, west_last_column, nullptr};   // absent: nullptr
///   EdgeStrips edges{out_first_row, nullptr, out_first_column, nullptr};
///   cpu_jacobi_tile(coeffs, out, out_ld, in, halo, edges);
#include <cstddef>

#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// A column-major tile in host memory (element (r, c) at ptr[r + c * ld]).
struct TileView {
  const double* ptr = nullptr;
  std::size_t rows = 0, cols = 0, ld = 0;
  explicit operator bool() const { return ptr != nullptr; }
};

/// The neighbours' strips a tile reads, contiguous: north = the north tile's last row (cols
/// values), south = the south tile's first row (cols), west = the west tile's last column (rows),
/// east = the east tile's first column (rows). nullptr: no neighbour there, because the tile lies
/// on that edge of the grid, whose row or column is boundary.
struct Halo {
  const double* north = nullptr;
  const double* south = nullptr;
  const double* west = nullptr;
  const double* east = nullptr;
};

/// The output tile's own edge strips, contiguous: first row, last row (cols values each), first
/// column, last column (rows each). nullptr: not written (no neighbour reads it).
struct EdgeStrips {
  double* north = nullptr;
  double* south = nullptr;
  double* west = nullptr;
  double* east = nullptr;
};

/// Writes the next values of tile `in` into `out` (same shape, its own ld) and its edges into
/// `edges`. A missing neighbour makes that edge row or column a boundary, copied as it is.
void cpu_jacobi_tile(const Coefficients& c, double* out, std::size_t out_ld, const TileView& in,
                     const Halo& halo, const EdgeStrips& edges);

}  // namespace conveyor::apps::stencil
