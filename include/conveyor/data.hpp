#pragma once
/// Data registered with a Runtime: a vector, or a column-major matrix with a leading dimension, or
/// one tile of a matrix partitioned without copying. The user's memory is the host replica (or, for
/// data registered with Runtime::register_device_bytes, that device's replica); the runtime keeps
/// at most one more replica per memory space and copies between them as tasks need (MSI
/// coherence). A Data is a cheap handle (copies refer to the same registration).
///
///   std::vector<double> a(n * n);
///   conveyor::Data m = rt.register_matrix(a.data(), n, n, n);   // n x n, leading dimension n
///   conveyor::TileGrid tiles = rt.partition(m, 256, 256);       // views, no copy
///   rt.submit(potrf, {{tiles.at(0, 0), conveyor::Access::ReadWrite}});
///   rt.unpartition(tiles);                                       // tiles written back into a
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/access.hpp"

namespace conveyor {

namespace data {
struct DataState;   // the runtime's bookkeeping (src/data/data_state.hpp)
struct DataAccess;  // lets the runtime make handles and reach the bookkeeping
}  // namespace data

/// Handle to registered data. Default-constructed handles refer to nothing; a handle whose data has
/// been unregistered makes submit() and acquire() throw UsageError ("used after unregister").
class Data {
 public:
  Data() = default;

  /// False for a default-constructed handle or after unregister.
  bool registered() const;
  /// Size of one element in bytes.
  std::size_t elem_size() const;
  /// Rows (elements per column); a vector of n elements has n rows and 1 column.
  std::size_t rows() const;
  std::size_t cols() const;
  /// Leading dimension of the host memory, in elements (>= rows).
  std::size_t ld() const;
  /// rows * cols * elem_size: the bytes a device replica holds (device replicas are contiguous).
  std::size_t bytes() const;
  /// The user's memory: element (r, c) is at host() + (r + c * ld()) * elem_size(). Null for data
  /// whose home is a device (Runtime::register_device_bytes; acquire() gives a host copy).
  void* host() const;
  /// The device whose memory is the data's home ("cuda:0"), or "" when it is host memory.
  const std::string& home_device() const;
  /// The name given at registration, or "" (used in error messages and the trace).
  const std::string& name() const;

  /// Whether both handles refer to the same registration.
  bool operator==(const Data& other) const { return state_ == other.state_; }

 private:
  friend struct data::DataAccess;
  explicit Data(std::shared_ptr<data::DataState> state) : state_(std::move(state)) {}
  std::shared_ptr<data::DataState> state_;
};

/// One data and how a task uses it.
struct DataAccess {
  Data data;
  Access mode = Access::Read;
};

/// A matrix partitioned into equal tiles (Runtime::partition). Tile (i, j) covers rows
/// [i * tile_rows, (i + 1) * tile_rows) and columns [j * tile_cols, (j + 1) * tile_cols).
struct TileGrid {
  Data matrix;                ///< the partitioned matrix (not usable in tasks until unpartition)
  std::size_t tile_rows = 0;  ///< rows of each tile
  std::size_t tile_cols = 0;  ///< columns of each tile
  std::size_t grid_rows = 0;  ///< tiles down
  std::size_t grid_cols = 0;  ///< tiles across
  std::vector<Data> tiles;    ///< column-major: tile (i, j) is tiles[i + j * grid_rows]

  /// Tile (i, j); throws UsageError when out of range.
  const Data& at(std::size_t i, std::size_t j) const;
};

}  // namespace conveyor
