#pragma once
/// What a device kernel of one tile needs, the same for OpenCL (cl_mem handles) and CUDA (device
/// pointers). Device replicas are contiguous (ld == rows), and strips are contiguous vectors, so
/// the shapes are all the layout there is. A missing neighbour (the tile lies on that edge of the
/// grid) is nullptr, and so is the tile's own strip on that side (nobody reads it).
namespace conveyor::apps::stencil {

struct DeviceTiles {
  void* out = nullptr;  ///< rows x cols, written
  void* in = nullptr;   ///< rows x cols
  /// The neighbours' strips read: the north tile's last row (cols values), the south tile's first
  /// row (cols), the west tile's last column (rows), the east tile's first column (rows).
  void* north = nullptr;
  void* south = nullptr;
  void* west = nullptr;
  void* east = nullptr;
  /// This tile's own edge strips of the output, written with it: first row, last row (cols values
  /// each), first column, last column (rows each).
  void* out_north = nullptr;
  void* out_south = nullptr;
  void* out_west = nullptr;
  void* out_east = nullptr;
  int rows = 0, cols = 0;
};

/// Which neighbours exist, as the kernels receive it; also the sides whose strips a tile writes.
enum NeighbourBits : int { kNorth = 1, kSouth = 2, kWest = 4, kEast = 8 };

/// The four corners of a tile in buffer order (temporal blocking: halo.hpp), each named by the two
/// sides that meet there.
enum Corner : int { kNorthWest = 0, kNorthEast = 1, kSouthWest = 2, kSouthEast = 3 };

inline int neighbour_bits(const DeviceTiles& t) {
  return (t.north ? kNorth : 0) | (t.south ? kSouth : 0) | (t.west ? kWest : 0) |
         (t.east ? kEast : 0);
}

}  // namespace conveyor::apps::stencil
