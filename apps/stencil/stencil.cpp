#include "stencil/stencil.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

// The tiles of one grid, registered one by one: Runtime::partition wants tiles that divide the
// matrix, and a ragged last row and column of tiles is what the stencil must allow.
class TiledGrid {
 public:
  TiledGrid(Runtime& rt, double* grid, int n, int block, const char* name) : rt_(rt), nt_(0) {
    nt_ = tiles_per_side(n, block);
    tiles_.resize(static_cast<std::size_t>(nt_) * nt_);
    auto width = [&](int i) { return static_cast<std::size_t>(std::min(block, n - i * block)); };
    try {
      for (int j = 0; j < nt_; ++j)
        for (int i = 0; i < nt_; ++i)
          at(i, j) = rt.register_matrix(
              grid + static_cast<long>(i) * block + static_cast<long>(j) * block * n, width(i),
              width(j), static_cast<std::size_t>(n),
              std::string(name) + "[" + std::to_string(i) + "," + std::to_string(j) + "]");
    } catch (...) {
      release();  // no destructor runs for an object whose constructor threw
      throw;
    }
  }
  TiledGrid(const TiledGrid&) = delete;
  TiledGrid& operator=(const TiledGrid&) = delete;
  /// Unregisters what is left, quietly: on the way out of a failure one refusal must not keep the
  /// rest registered (the caller may free the grid next).
  ~TiledGrid() { release(); }
  /// Unregisters every tile, throwing what the runtime throws (a copy home that failed).
  void unregister() {
    for (auto& d : tiles_)
      if (d.registered()) rt_.unregister(d);
  }
  void release() noexcept {
    for (auto& d : tiles_) try {
        if (d.registered()) rt_.unregister(d);
      } catch (...) {
      }
  }
  Data& at(int i, int j) { return tiles_[static_cast<std::size_t>(i + j * nt_)]; }
  int tiles() const { return nt_; }

 private:
  Runtime& rt_;
  int nt_;
  std::vector<Data> tiles_;
};

}  // namespace

int tiles_per_side(int n, int block) { return block > 0 ? (n + block - 1) / block : 0; }

Sweeps run_sweeps(Runtime& rt, const StencilCodelet& codelet, double* a, double* b, int n,
                  int block, int sweeps, const Coefficients& c) {
  if (n <= 0) throw UsageError("stencil: --n must be positive (got " + std::to_string(n) + ")");
  if (block <= 0)
    throw UsageError("stencil: --block must be positive (got " + std::to_string(block) + ")");
  if (sweeps < 0) throw UsageError("stencil: --sweeps must not be negative");
  if (block > n) block = n;  // one tile

  TiledGrid grid_a(rt, a, n, block, "A"), grid_b(rt, b, n, block, "B");
  TiledGrid* grids[2] = {&grid_a, &grid_b};
  const int nt = grid_a.tiles();
  Sweeps s;
  s.tiles = nt;
  rt.reset_stats();
  const double start = rt.seconds();
  std::vector<DataAccess> accesses;
  accesses.reserve(6);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    TiledGrid& in = *grids[sweep % 2];
    TiledGrid& out = *grids[(sweep + 1) % 2];
    // Earlier sweeps first among ready tasks: the next sweep's tasks become ready as this one's
    // end, and running them before the rest of this sweep would only hold its tiles longer.
    const int priority = sweeps - sweep;
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nt; ++i) {
        TaskArgs args{c.c0, c.c1, 0};
        accesses.clear();
        accesses.push_back({out.at(i, j), Access::Write});
        accesses.push_back({in.at(i, j), Access::Read});
        // The order codelet.cpp decodes: north, south, west, east, those that exist.
        if (i > 0) args.bits |= kNorth, accesses.push_back({in.at(i - 1, j), Access::Read});
        if (i + 1 < nt) args.bits |= kSouth, accesses.push_back({in.at(i + 1, j), Access::Read});
        if (j > 0) args.bits |= kWest, accesses.push_back({in.at(i, j - 1), Access::Read});
        if (j + 1 < nt) args.bits |= kEast, accesses.push_back({in.at(i, j + 1), Access::Read});
        rt.submit(codelet.jacobi, accesses, priority, {},
                  std::as_bytes(std::span<const TaskArgs>(&args, 1)));
        ++s.tasks;
      }
  }
  rt.wait_all();  // writes back what is valid only on a device: counted in the time
  s.time_s = rt.seconds() - start;
  grid_a.unregister();
  grid_b.unregister();
  s.stats = rt.stats();  // after unregister, so that any final write-back is counted too
  s.result = sweeps % 2 == 0 ? a : b;
  return s;
}

}  // namespace conveyor::apps::stencil
