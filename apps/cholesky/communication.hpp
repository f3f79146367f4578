#pragma once
/// The messages a distributed tiled Cholesky needs when the tiles are 2D block-cyclic on a P x Q
/// process grid and every task runs on the owner of the tile it writes (docs/distributed.md,
/// "Closed form"). Each tile is sent in its final state only, once to each rank that reads it:
///
///   A_kk (after potrf) to the ranks running trsm(i, k), i > k: the process rows i mod P of
///     process column k mod Q, less its owner:       min(P, t-1-k) - [t-1-k >= P]
///   A_ik (after trsm), i > k, to the ranks running gemm(i, j, k), syrk(i, k) (process row i mod
///     P, columns j mod Q for k < j <= i) and gemm(l, i, k), l > i (process column i mod Q, rows
///     l mod P), less its owner (i mod P, k mod Q):
///       min(Q, i-k) + min(P, t-1-i) - [t-1-i >= P] - [i-k >= Q]
///
/// summed over 0 <= k < i < t. For t >> P, Q this is about t^2/2 (P + Q - 2) messages.
///
///   auto v = block_cyclic_volume(4096, 256, {2, 2}, sizeof(double));   // v.messages, v.bytes
#include <cstddef>
#include <cstdint>

#include "conveyor/process_grid.hpp"

namespace conveyor::apps::cholesky {

struct CommunicationVolume {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;  ///< tile bytes (the last row and column of tiles may be narrower)
};

/// The closed form above for an n x n matrix in tiles of `block` (ragged last tiles included).
CommunicationVolume block_cyclic_volume(int n, int block, ProcessGrid grid, std::size_t elem_size);

}  // namespace conveyor::apps::cholesky
