#pragma once
/// What a task of temporal blocking (D sweeps on one tile, halo.hpp) hands its kernel, the same for
/// the CPU (host pointers), OpenCL (cl_mem) and CUDA (device pointers), and the geometry of the
/// extended tile the kernels sweep: the tile with the neighbours' D-wide strips around it and the
/// diagonal neighbours' D x D corners, on the sides where neighbours exist. A side without one is
/// the grid's edge: the tile's own first or last row or column there is fixed boundary.
///
///   DeepTiles t = ...;   Extended e = extended(t);
///   // extended cell (er, ec) is tile cell (er - e.north, ec - e.west); e.rows x e.cols in all
#include "stencil/device_tiles.hpp"

namespace conveyor::apps::stencil {

struct DeepTiles {
  void* out = nullptr;  ///< rows x cols, written (leading dimension out_ld)
  void* in = nullptr;   ///< rows x cols (leading dimension in_ld)
  /// The neighbours' strips, sides in the order N, S, W, E: the north tile's last `width` rows
  /// (width x cols), the south tile's first rows, the west tile's last `width` columns (rows x
  /// width), the east tile's first columns. nullptr where there is no neighbour.
  void* strips[4] = {};
  /// This tile's own strips of the output, same shapes, its first / last rows and columns.
  void* out_strips[4] = {};
  /// The diagonal neighbours' width x width corners, in the order NW, NE, SW, SE: the north-west
  /// tile's south-east corner, ... nullptr where there is no diagonal neighbour.
  void* corners[4] = {};
  /// This tile's own corners of the output, same order.
  void* out_corners[4] = {};
  int rows = 0, cols = 0;
  long in_ld = 0, out_ld = 0;  ///< rows on devices (contiguous replicas)
  int bits = 0;                ///< NeighbourBits
  int width = 1;               ///< strip width D
  int depth = 1;               ///< sweeps to do, 1 <= depth <= width
};

/// The extended tile: halo widths per side (width where a neighbour exists, else 0) and its size.
struct Extended {
  int north = 0, south = 0, west = 0, east = 0;
  int rows = 0, cols = 0;
  long size() const { return static_cast<long>(rows) * cols; }
};

inline Extended extended(const DeepTiles& t) {
  Extended e;
  e.north = t.bits & kNorth ? t.width : 0;
  e.south = t.bits & kSouth ? t.width : 0;
  e.west = t.bits & kWest ? t.width : 0;
  e.east = t.bits & kEast ? t.width : 0;
  e.rows = e.north + t.rows + e.south;
  e.cols = e.west + t.cols + e.east;
  return e;
}

/// The rows (or columns) of the extended tile that sweep `s` (1-based) computes, [lo, hi]: on a
/// side with a neighbour the valid region shrinks by one cell per sweep from the extended edge;
/// on a side without one the edge line is boundary, never computed, always valid.
struct Span {
  int lo = 0, hi = -1;
  int count() const { return hi >= lo ? hi - lo + 1 : 0; }
};
inline Span sweep_span(int extent, int before, int after, int s) {
  return {before > 0 ? s : 1, extent - 1 - (after > 0 ? s : 1)};
}

}  // namespace conveyor::apps::stencil
