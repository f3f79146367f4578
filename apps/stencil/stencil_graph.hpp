#pragma once
/// The stencil's task flow, shared by the run on one node (Runtime, Data handles: stencil.cpp) and
/// the run on several ranks (Distributed, DistributedData: stencil_distributed.cpp), so that both
/// submit the same tasks with the same buffers in the same order. Header-only: the distributed
/// library instantiates it with its own handles.
///
///   HaloHandles<Data> a, b;   // filled by the caller's registration
///   submit_sweeps<DataAccess>(a, b, sweeps, depth, coeffs, [&](std::span<const DataAccess> acc,
///                                                        int priority, const TaskArgs& args,
///                                                        int i, int j) { rt.submit(...); });
#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "conveyor/access.hpp"
#include "stencil/halo.hpp"
#include "stencil/point.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {

/// One grid's registered data: its nt x nt tiles, each tile's four edge strips (an empty handle
/// on a side without a neighbour: halo.hpp) and, with temporal blocking, its four corner blocks
/// (an empty handle where there is no diagonal neighbour, and always with width 1).
template <typename Handle>
struct HaloHandles {
  int nt = 0;
  int width = 1;              ///< strip width: the sweeps a task may do (--temporal-block)
  std::vector<Handle> tiles;  ///< tile (i, j) at i + j * nt
  /// Tile (i, j)'s strip on side s at 4 * (i + j * nt) + side_index(s).
  std::vector<Handle> strips;
  /// Tile (i, j)'s corner k at 4 * (i + j * nt) + k (only when width > 1).
  std::vector<Handle> corners;

  void reset(int tiles_per_side, int strip_width = 1) {
    nt = tiles_per_side;
    width = strip_width;
    const auto count = static_cast<std::size_t>(nt) * static_cast<std::size_t>(nt);
    tiles.assign(count, Handle());
    strips.assign(4 * count, Handle());
    corners.assign(width > 1 ? 4 * count : 0, Handle());
  }
  Handle& tile(int i, int j) { return tiles[static_cast<std::size_t>(i + j * nt)]; }
  Handle& strip(int i, int j, int side) {
    return strips[4 * static_cast<std::size_t>(i + j * nt) +
                  static_cast<std::size_t>(side_index(side))];
  }
  Handle& corner(int i, int j, int k) {
    return corners[4 * static_cast<std::size_t>(i + j * nt) + static_cast<std::size_t>(k)];
  }
};

/// Rounds of `depth` sweeps that `sweeps` sweeps take (the last one takes the remainder).
inline int rounds_for(int sweeps, int depth) {
  return depth > 0 ? (sweeps + depth - 1) / depth : 0;
}

/// Submits `sweeps` sweeps from grid `a` in rounds of `depth` sweeps (temporal blocking; depth 1:
/// one sweep per round; the last round takes the remainder). Round k reads grid k mod 2 and writes
/// the other: for every tile (i, j), column after column, one task with the buffers halo.hpp
/// lists, through submit(accesses, priority, args, i, j). The grids' strip width must be `depth`.
/// Earlier rounds get higher priorities: the next round's tasks become ready as this one's end,
/// and running them before the rest of this round would only hold its tiles longer.
template <typename AccessT, typename Handle, typename Submit>
void submit_sweeps(HaloHandles<Handle>& a, HaloHandles<Handle>& b, int sweeps, int depth,
                   const Coefficients& c, Submit&& submit) {
  HaloHandles<Handle>* grids[2] = {&a, &b};
  const int nt = a.nt;
  const int rounds = rounds_for(sweeps, depth);
  std::vector<AccessT> accesses;
  accesses.reserve(kMaxTaskBuffers);
  for (int round = 0; round < rounds; ++round) {
    HaloHandles<Handle>& in = *grids[round % 2];
    HaloHandles<Handle>& out = *grids[(round + 1) % 2];
    const int priority = rounds - round;
    const int round_sweeps = std::min(depth, sweeps - round * depth);
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nt; ++i) {
        const int bits = neighbour_bits(i, j, nt);
        accesses.clear();
        accesses.push_back(AccessT{out.tile(i, j), Access::Write});
        accesses.push_back(AccessT{in.tile(i, j), Access::Read});
        for (int side : kSides)
          if (bits & side) accesses.push_back(AccessT{out.strip(i, j, side), Access::Write});
        // The neighbour on each side, and its strip that faces this tile.
        if (bits & kNorth) accesses.push_back(AccessT{in.strip(i - 1, j, kSouth), Access::Read});
        if (bits & kSouth) accesses.push_back(AccessT{in.strip(i + 1, j, kNorth), Access::Read});
        if (bits & kWest) accesses.push_back(AccessT{in.strip(i, j - 1, kEast), Access::Read});
        if (bits & kEast) accesses.push_back(AccessT{in.strip(i, j + 1, kWest), Access::Read});
        if (depth > 1) {
          // The corners: this tile's own, then the diagonal neighbours' that face it.
          for (int k : kCorners)
            if (has_corner(bits, k))
              accesses.push_back(AccessT{out.corner(i, j, k), Access::Write});
          for (int k : kCorners)
            if (has_corner(bits, k)) {
              const int di = k == kNorthWest || k == kNorthEast ? -1 : 1;
              const int dj = k == kNorthWest || k == kSouthWest ? -1 : 1;
              accesses.push_back(
                  AccessT{in.corner(i + di, j + dj, opposite_corner(k)), Access::Read});
            }
        }
        const TaskArgs args{c.c0, c.c1, bits, round_sweeps, depth};
        submit(std::span<const AccessT>(accesses), priority, args, i, j);
      }
  }
}

}  // namespace conveyor::apps::stencil
