#pragma once
/// The stencil's distribution of tiles over a P x Q process grid, and the messages it costs. Block,
/// not block-cyclic: each rank holds one contiguous rectangle of tiles, so only the strips on the
/// rectangles' borders cross ranks (a block-cyclic map would put every tile edge on a border).
/// Process row p holds the tile rows [p t / P, (p + 1) t / P) (rounded down), process column q the
/// tile columns likewise, so the rectangles differ by at most one tile per side; rank = p * Q + q,
/// the row-major numbering of ProcessGrid. Needs no MPI.
///
///   BlockGrid g{ProcessGrid{2, 2}, 8};   // 8 x 8 tiles on 2 x 2 ranks: 4 x 4 tiles each
///   int r = g.owner(5, 2);               // process row 1, column 0: rank 2
///   Communication c = strip_messages(g, n, sweeps);
#include <cstdint>

#include "conveyor/process_grid.hpp"

namespace conveyor::apps::stencil {

struct BlockGrid {
  ProcessGrid grid;
  int tiles = 1;  ///< tiles per side, t

  /// The process row holding tile row i: the largest p with p t / P <= i.
  int process_row(int i) const {
    return static_cast<int>((static_cast<long>(i + 1) * grid.p - 1) / tiles);
  }
  int process_col(int j) const {
    return static_cast<int>((static_cast<long>(j + 1) * grid.q - 1) / tiles);
  }
  int owner(int i, int j) const { return process_row(i) * grid.q + process_col(j); }
};

/// Strip messages of a run, in closed form.
struct Communication {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

/// The messages of `sweeps` sweeps on an n x n grid: every tile edge between two ranks carries one
/// strip each way per sweep (the distributed layer sends a version once to each rank that reads it,
/// and each strip has exactly one reader). With P' = min(P, t) process rows that hold tiles and
/// Q' = min(Q, t) columns, there are (P' - 1) t edges across process rows and (Q' - 1) t across
/// process columns, and the strips along one border add up to n values: per sweep
/// 2 t (P' + Q' - 2) messages of 8 * 2 n (P' + Q' - 2) bytes in all.
Communication strip_messages(const BlockGrid& g, int n, int sweeps);

}  // namespace conveyor::apps::stencil
