#pragma once
/// The check of a tiled run against the sequential reference (grid.hpp): the same arithmetic in
/// the same order, so every cell must be equal, bit for bit.
#include <cstdint>

namespace conveyor::apps::stencil {

struct Comparison {
  std::uint64_t mismatches = 0;  ///< cells that differ
  double max_abs_diff = 0;       ///< the largest |difference| (NaN counts as a mismatch)
};

/// Compares two n x n grids (ld n) cell by cell.
Comparison compare_grids(const double* result, const double* reference, int n);

}  // namespace conveyor::apps::stencil
