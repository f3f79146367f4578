#pragma once
/// A P x Q process grid and the 2D block-cyclic map of a tile grid onto it (ScaLAPACK's layout,
/// row-major process numbering): tile (i, j) belongs to process row i mod P and process column
/// j mod Q, i.e. rank (i mod P) * Q + (j mod Q). Needs no MPI, so that code built without it (the
/// CLI, the closed forms of docs/distributed.md) can use it too.
///
///   conveyor::ProcessGrid grid = conveyor::ProcessGrid::parse("2x3");   // 6 ranks
///   int r = grid.owner(4, 7);                                            // (0, 1) -> rank 1
#include <string>
#include <string_view>

namespace conveyor {

struct ProcessGrid {
  int p = 1;  ///< process rows
  int q = 1;  ///< process columns

  int size() const { return p * q; }
  /// The rank owning tile (i, j) under the 2D block-cyclic distribution.
  int owner(long i, long j) const { return static_cast<int>(i % p) * q + static_cast<int>(j % q); }
  /// "PxQ" (e.g. "2x2"); throws UsageError for anything else or a dimension below 1.
  static ProcessGrid parse(std::string_view text);
  /// The most square grid of `ranks` processes with p <= q (4 -> 2x2, 6 -> 2x3, 7 -> 1x7).
  static ProcessGrid square(int ranks);
  std::string to_string() const { return std::to_string(p) + "x" + std::to_string(q); }
};

}  // namespace conveyor
