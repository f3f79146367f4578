#include "stencil/cpu_deep_kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "common/thread_scratch.hpp"
#include "stencil/halo.hpp"

namespace conveyor::apps::stencil {
namespace {

const double* at(void* p, long offset) { return static_cast<const double*>(p) + offset; }

// The extended tile, column by column: of each column the band above the tile (north strip or a
// corner), the tile's own rows (tile, west or east strip), the band below.
void gather(const DeepTiles& t, const Extended& e, double* x) {
  const long w = t.width;
  for (int ec = 0; ec < e.cols; ++ec) {
    const long c = ec - e.west;  // tile column: negative in the west band, >= cols in the east
    const double *top = nullptr, *middle = nullptr, *bottom = nullptr;
    if (c < 0) {
      const long k = c + w;  // column of the west strip and the west corners
      middle = at(t.strips[side_index(kWest)], k * t.rows);
      if (e.north) top = at(t.corners[kNorthWest], k * w);
      if (e.south) bottom = at(t.corners[kSouthWest], k * w);
    } else if (c < t.cols) {
      middle = at(t.in, c * t.in_ld);
      if (e.north) top = at(t.strips[side_index(kNorth)], c * w);
      if (e.south) bottom = at(t.strips[side_index(kSouth)], c * w);
    } else {
      const long k = c - t.cols;
      middle = at(t.strips[side_index(kEast)], k * t.rows);
      if (e.north) top = at(t.corners[kNorthEast], k * w);
      if (e.south) bottom = at(t.corners[kSouthEast], k * w);
    }
    double* column = x + static_cast<long>(ec) * e.rows;
    if (top) std::copy_n(top, e.north, column);
    std::copy_n(middle, t.rows, column + e.north);
    if (bottom) std::copy_n(bottom, e.south, column + e.north + t.rows);
  }
}

// The extended tile's edge lines on the sides without a neighbour are the grid's fixed boundary:
// both scratch tiles hold them, since every sweep reads them.
void copy_boundary(const Extended& e, const double* x, double* y) {
  const long ld = e.rows;
  for (int ec = 0; ec < e.cols; ++ec) {
    if (!e.north) y[ec * ld] = x[ec * ld];
    if (!e.south) y[e.rows - 1 + ec * ld] = x[e.rows - 1 + ec * ld];
  }
  if (!e.west) std::copy_n(x, e.rows, y);
  if (!e.east) std::copy_n(x + (e.cols - 1) * ld, e.rows, y + (e.cols - 1) * ld);
}

// Sweep s over the extended tile: only the cells still valid after it (sweep_span).
void sweep(const Coefficients& c, const Extended& e, const double* x, double* y, int s) {
  const long ld = e.rows;
  const Span rows = sweep_span(e.rows, e.north, e.south, s);
  const Span cols = sweep_span(e.cols, e.west, e.east, s);
  for (int ec = cols.lo; ec <= cols.hi; ++ec) {
    const double* xc = x + ec * ld;
    const double* left = xc - ld;
    const double* right = xc + ld;
    double* __restrict yc = y + ec * ld;
    for (int er = rows.lo; er <= rows.hi; ++er)
      yc[er] = point(c, xc[er], xc[er - 1], xc[er + 1], left[er], right[er]);
  }
}

// The last sweep, from the extended tile x into the output tile: the tile's cells only, its rows
// and columns on the grid's edges copied as they are (boundary), as the one-sweep kernel does.
void last_sweep(const Coefficients& c, const Extended& e, const double* x, const DeepTiles& t) {
  const long ld = e.rows;
  const int rows = t.rows;
  auto* out = static_cast<double*>(t.out);
  for (int col = 0; col < t.cols; ++col) {
    const double* xc = x + (col + e.west) * ld + e.north;  // the tile's rows of this column
    double* __restrict o = out + col * t.out_ld;
    if ((col == 0 && !e.west) || (col + 1 == t.cols && !e.east)) {
      std::copy_n(xc, rows, o);
      continue;
    }
    const double* left = xc - ld;
    const double* right = xc + ld;
    auto cell = [&](int r) { return point(c, xc[r], xc[r - 1], xc[r + 1], left[r], right[r]); };
    // Row -1 and row `rows` exist in x exactly where a neighbour does.
    const int first = e.north ? 0 : 1, last = e.south ? rows - 1 : rows - 2;
    if (!e.north) o[0] = xc[0];
    if (!e.south) o[rows - 1] = xc[rows - 1];
    for (int r = first; r <= last; ++r) o[r] = cell(r);
  }
}

}  // namespace

void cpu_jacobi_deep(const Coefficients& c, const DeepTiles& t) {
  const Extended e = extended(t);
  // Two extended tiles, kept per worker thread.
  double* x = common::thread_scratch<double>(2 * static_cast<std::size_t>(e.size()));
  double* y = x + e.size();
  gather(t, e, x);
  if (t.depth > 1) copy_boundary(e, x, y);
  for (int s = 1; s < t.depth; ++s) {
    sweep(c, e, x, y, s);
    std::swap(x, y);
  }
  last_sweep(c, e, x, t);
  // The output's strips and corners, for the neighbours' tasks of the next round.
  const auto* out = static_cast<const double*>(t.out);
  const auto rows = static_cast<std::size_t>(t.rows), cols = static_cast<std::size_t>(t.cols);
  const auto ld = static_cast<std::size_t>(t.out_ld), w = static_cast<std::size_t>(t.width);
  for (int side : kSides)
    if (void* strip = t.out_strips[side_index(side)])
      copy_edge(out, rows, cols, ld, side, static_cast<double*>(strip), w);
  for (int k : kCorners)
    if (void* corner = t.out_corners[k])
      copy_corner(out, rows, cols, ld, k, static_cast<double*>(corner), w);
}

}  // namespace conveyor::apps::stencil
