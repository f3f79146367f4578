#pragma once
/// Halo strips: every tile's four edges (first row, last row, first column, last column) are data
/// of their own, written by the task that writes the tile and read by the neighbours' tasks of the
/// next sweep, so that a device or another rank receives B values per neighbour instead of B^2. A
/// strip exists only on a side where the tile has a neighbour (the grid's outer edges have none),
/// so the sides a tile writes strips for are exactly the sides it reads neighbour strips from.
///
/// A task's buffers, with k = the number of neighbours (popcount of the side bits):
///   0          the output tile (Write)
///   1          the input tile (Read)
///   2 .. 1+k   the output tile's own strips, sides in the order north, south, west, east (Write)
///   2+k .. 1+2k  the neighbours' strips in the same order (Read): the north tile's last row, the
///              south tile's first row, the west tile's last column, the east tile's first column
///
///   int bits = neighbour_bits(i, j, nt);
///   int own = own_strip_index(bits, kWest), theirs = neighbour_strip_index(bits, kWest);
#include <algorithm>
#include <cstddef>

#include "stencil/device_tiles.hpp"

namespace conveyor::apps::stencil {

/// The four sides in buffer order.
inline constexpr int kSides[4] = {kNorth, kSouth, kWest, kEast};
/// Most buffers a task has: two tiles and eight strips.
inline constexpr int kMaxTaskBuffers = 10;

/// Which neighbours tile (i, j) of an nt x nt tile grid has.
inline int neighbour_bits(int i, int j, int nt) {
  return (i > 0 ? kNorth : 0) | (i + 1 < nt ? kSouth : 0) | (j > 0 ? kWest : 0) |
         (j + 1 < nt ? kEast : 0);
}

/// 0..3 for north, south, west, east: where a side's strip sits among a tile's four.
inline int side_index(int side) {
  return side == kNorth ? 0 : side == kSouth ? 1 : side == kWest ? 2 : 3;
}

/// The side of the neighbour that faces `side` (a tile's north neighbour reads its south strip).
inline int opposite(int side) {
  return side == kNorth ? kSouth : side == kSouth ? kNorth : side == kWest ? kEast : kWest;
}

inline int present_sides(int bits) {
  return (bits & kNorth ? 1 : 0) + (bits & kSouth ? 1 : 0) + (bits & kWest ? 1 : 0) +
         (bits & kEast ? 1 : 0);
}

/// Present sides before `side` in buffer order.
inline int sides_before(int bits, int side) {
  int count = 0;
  for (int s : kSides) {
    if (s == side) break;
    count += (bits & s) ? 1 : 0;
  }
  return count;
}

/// The buffer of the task's own output strip on `side`, or -1 when the tile has none there.
inline int own_strip_index(int bits, int side) {
  return (bits & side) ? 2 + sides_before(bits, side) : -1;
}

/// The buffer of the neighbour's strip read on `side`, or -1 when there is no neighbour.
inline int neighbour_strip_index(int bits, int side) {
  return (bits & side) ? 2 + present_sides(bits) + sides_before(bits, side) : -1;
}

/// Values in a rows x cols tile's strip on `side`: cols for a row, rows for a column.
inline std::size_t strip_length(std::size_t rows, std::size_t cols, int side) {
  return side == kNorth || side == kSouth ? cols : rows;
}

/// Copies the edge on `side` of a column-major tile (element (r, c) at tile[r + c * ld]) into
/// `strip`: how the strips of the initial grid are filled.
inline void copy_edge(const double* tile, std::size_t rows, std::size_t cols, std::size_t ld,
                      int side, double* strip) {
  if (side == kWest || side == kEast) {
    const double* column = tile + (side == kWest ? 0 : (cols - 1) * ld);
    std::copy_n(column, rows, strip);
    return;
  }
  const std::size_t r = side == kNorth ? 0 : rows - 1;
  for (std::size_t c = 0; c < cols; ++c) strip[c] = tile[r + c * ld];
}

}  // namespace conveyor::apps::stencil
