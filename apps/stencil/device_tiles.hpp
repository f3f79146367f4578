#pragma once
/// What a device kernel of one tile needs, the same for OpenCL (cl_mem handles) and CUDA (device
/// pointers). Device replicas are contiguous (ld == rows), so the shapes are all the layout there
/// is. A missing neighbour (the tile lies on that edge of the grid) is nullptr; its shape is
/// unused.
namespace conveyor::apps::stencil {

struct DeviceTiles {
  void* out = nullptr;  ///< rows x cols, written
  void* in = nullptr;   ///< rows x cols
  void* north = nullptr;
  void* south = nullptr;
  void* west = nullptr;
  void* east = nullptr;
  int rows = 0, cols = 0;
  int north_rows = 0;  ///< the north tile's rows (its last row is read)
  int south_rows = 0;  ///< the south tile's rows (its ld: its first row is read)
  int west_cols = 0;   ///< the west tile's columns (its last column is read)
};

/// Which neighbours exist, as the kernels receive it.
enum NeighbourBits : int { kNorth = 1, kSouth = 2, kWest = 4, kEast = 8 };

inline int neighbour_bits(const DeviceTiles& t) {
  return (t.north ? kNorth : 0) | (t.south ? kSouth : 0) | (t.west ? kWest : 0) |
         (t.east ? kEast : 0);
}

}  // namespace conveyor::apps::stencil
