#pragma once
/// The stencil's task flow, shared by the run on one node (Runtime, Data handles: stencil.cpp) and
/// the run on several ranks (Distributed, DistributedData: distributed.cpp), so that both submit
/// the same tasks with the same buffers in the same order. Header-only: the distributed library
/// instantiates it with its own handles.
///
///   HaloHandles<Data> a, b;   // filled by the caller's registration
///   submit_sweeps<DataAccess>(a, b, sweeps, coeffs, [&](std::span<const DataAccess> acc,
///                                                        int priority, const TaskArgs& args,
///                                                        int i, int j) { rt.submit(...); });
#include <cstddef>
#include <span>
#include <vector>

#include "conveyor/access.hpp"
#include "stencil/halo.hpp"
#include "stencil/point.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {

/// One grid's registered data: its nt x nt tiles and each tile's four edge strips (an empty handle
/// on a side without a neighbour: halo.hpp).
template <typename Handle>
struct HaloHandles {
  int nt = 0;
  std::vector<Handle> tiles;  ///< tile (i, j) at i + j * nt
  /// Tile (i, j)'s strip on side s at 4 * (i + j * nt) + side_index(s).
  std::vector<Handle> strips;

  void reset(int tiles_per_side) {
    nt = tiles_per_side;
    const auto count = static_cast<std::size_t>(nt) * static_cast<std::size_t>(nt);
    tiles.assign(count, Handle());
    strips.assign(4 * count, Handle());
  }
  Handle& tile(int i, int j) { return tiles[static_cast<std::size_t>(i + j * nt)]; }
  Handle& strip(int i, int j, int side) {
    return strips[4 * static_cast<std::size_t>(i + j * nt) +
                  static_cast<std::size_t>(side_index(side))];
  }
};

/// Submits `sweeps` sweeps from grid `a` (sweep s reads grid s mod 2 and writes the other): for
/// every tile (i, j), column after column, one task with the buffers halo.hpp lists, through
/// submit(accesses, priority, args, i, j). Earlier sweeps get higher priorities: the next sweep's
/// tasks become ready as this one's end, and running them before the rest of this sweep would only
/// hold its tiles longer.
template <typename AccessT, typename Handle, typename Submit>
void submit_sweeps(HaloHandles<Handle>& a, HaloHandles<Handle>& b, int sweeps,
                   const Coefficients& c, Submit&& submit) {
  HaloHandles<Handle>* grids[2] = {&a, &b};
  const int nt = a.nt;
  std::vector<AccessT> accesses;
  accesses.reserve(kMaxTaskBuffers);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    HaloHandles<Handle>& in = *grids[sweep % 2];
    HaloHandles<Handle>& out = *grids[(sweep + 1) % 2];
    const int priority = sweeps - sweep;
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
        const TaskArgs args{c.c0, c.c1, bits};
        submit(std::span<const AccessT>(accesses), priority, args, i, j);
      }
  }
}

}  // namespace conveyor::apps::stencil
