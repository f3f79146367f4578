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
/// With temporal blocking (`--temporal-block D`, D > 1: a task does up to D sweeps) the strips are
/// D wide (D rows of cols values, or rows values in D columns), and because D sweeps of a 5-point
/// stencil reach the diagonal neighbours too, the D x D corner blocks follow, m = the corners whose
/// diagonal neighbour exists (both sides of that corner present), in the order NW, NE, SW, SE:
///   2+2k .. 1+2k+m     the output tile's own corners (Write)
///   2+2k+m .. 1+2k+2m  the diagonal neighbours' corners that face this tile (Read): the north-west
///                      tile's SE corner, the north-east's SW, the south-west's NE, the
///                      south-east's NW
/// With D = 1 there are no corners (m = 0): the layout, and the graph, are those of one sweep.
/// Every strip and corner is contiguous (its leading dimension is its number of rows).
///
///   int bits = neighbour_bits(i, j, nt);
///   int own = own_strip_index(bits, kWest), theirs = neighbour_strip_index(bits, kWest);
#include <algorithm>
#include <cstddef>

#include "stencil/device_tiles.hpp"

namespace conveyor::apps::stencil {

/// The four sides in buffer order.
inline constexpr int kSides[4] = {kNorth, kSouth, kWest, kEast};
/// Most buffers a task has: two tiles, eight strips and (temporal blocking) eight corners.
inline constexpr int kMaxTaskBuffers = 18;

inline constexpr int kCorners[4] = {kNorthWest, kNorthEast, kSouthWest, kSouthEast};

/// The side bits whose neighbours must both exist for the diagonal neighbour at `corner` to exist.
inline int corner_sides(int corner) {
  return (corner == kNorthWest || corner == kNorthEast ? kNorth : kSouth) |
         (corner == kNorthWest || corner == kSouthWest ? kWest : kEast);
}

inline bool has_corner(int bits, int corner) {
  return (bits & corner_sides(corner)) == corner_sides(corner);
}

/// The diagonal neighbour's corner that faces `corner` (the north-west tile gives its south-east).
inline int opposite_corner(int corner) { return 3 - corner; }

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

inline int present_corners(int bits) {
  int count = 0;
  for (int k : kCorners) count += has_corner(bits, k) ? 1 : 0;
  return count;
}

/// The buffer of the task's own output corner, or -1 when none (or when `width` is 1: no corners).
inline int own_corner_index(int bits, int corner, int width) {
  if (width <= 1 || !has_corner(bits, corner)) return -1;
  int before = 0;
  for (int k = 0; k < corner; ++k) before += has_corner(bits, k) ? 1 : 0;
  return 2 + 2 * present_sides(bits) + before;
}

/// The buffer of the diagonal neighbour's corner read at `corner`, or -1.
inline int neighbour_corner_index(int bits, int corner, int width) {
  const int own = own_corner_index(bits, corner, width);
  return own < 0 ? -1 : own + present_corners(bits);
}

/// Values in a rows x cols tile's strip on `side`: cols for a row, rows for a column.
inline std::size_t strip_length(std::size_t rows, std::size_t cols, int side) {
  return side == kNorth || side == kSouth ? cols : rows;
}

/// Copies the `height` x `width` block at (r0, c0) of a column-major tile (element (r, c) at
/// tile[r + c * ld]) into `block`, contiguous (leading dimension `height`).
inline void copy_block(const double* tile, std::size_t ld, std::size_t r0, std::size_t c0,
                       std::size_t height, std::size_t width, double* block) {
  for (std::size_t c = 0; c < width; ++c)
    std::copy_n(tile + r0 + (c0 + c) * ld, height, block + c * height);
}

/// Copies the band of `width` rows or columns on `side` of a column-major tile into `strip`
/// (contiguous: width x cols for a row band, rows x width for a column band): how the strips of
/// the initial grid are filled. Width 1 is the tile's edge row or column.
inline void copy_edge(const double* tile, std::size_t rows, std::size_t cols, std::size_t ld,
                      int side, double* strip, std::size_t width = 1) {
  const bool row = side == kNorth || side == kSouth;
  const std::size_t r0 = side == kSouth ? rows - width : 0;
  const std::size_t c0 = side == kEast ? cols - width : 0;
  copy_block(tile, ld, r0, c0, row ? width : rows, row ? cols : width, strip);
}

/// Copies the `width` x `width` block in `corner` of a column-major tile into `block`.
inline void copy_corner(const double* tile, std::size_t rows, std::size_t cols, std::size_t ld,
                        int corner, double* block, std::size_t width) {
  const int sides = corner_sides(corner);
  copy_block(tile, ld, sides & kSouth ? rows - width : 0, sides & kEast ? cols - width : 0, width,
             width, block);
}

}  // namespace conveyor::apps::stencil
