#pragma once
/// The stencil's grid: its initial values, the sequential reference the tiled run is checked
/// against, and the traffic it is credited with.
///
///   std::vector<double> a(n * n);
///   fill_initial(a.data(), n);                       // deterministic, boundary included
///   reference_sweeps(a.data(), scratch.data(), n, sweeps, coeffs);   // result in a
#include <cstdint>

#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// Initial value of cell (row, col): a hash of the position, uniform in [0, 1), the same on every
/// run and in the peer. The outer ring keeps these values for good (fixed boundary).
double initial_value(int row, int col);

/// Writes the initial n x n grid, column-major with leading dimension n, on every core (which is
/// also the pages' first touch).
void fill_initial(double* grid, int n);

/// T sweeps of the stencil over the whole n x n grid, one cell after another on one thread: the
/// check's reference, with point()'s arithmetic in point()'s order. `grid` holds the initial values
/// and receives the result; `scratch` (n * n) is the other grid of the ping-pong.
void reference_sweeps(double* grid, double* scratch, int n, int sweeps, const Coefficients& c);

/// Bytes credited to one sweep: every cell read once and written once, 2 * 8 * n^2 (the
/// neighbours' values read again across tile edges are not counted).
double sweep_bytes(int n);

}  // namespace conveyor::apps::stencil
