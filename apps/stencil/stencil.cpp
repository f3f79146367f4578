#include "stencil/stencil.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "conveyor/error.hpp"
#include "stencil/halo.hpp"
#include "stencil/stencil_graph.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

// The tiles of one grid, their edge strips and (temporal blocking) their corners, registered one
// by one: Runtime::partition wants tiles that divide the matrix, and a ragged last row and column
// of tiles is what the stencil must allow. The tiles are views of the grid; strips and corners live
// in memory of their own (at most 4 D n t + 4 D^2 t^2 values for width D), filled from the grid's
// edges when `fill_strips` (the grid the first round reads).
class HaloGrid {
 public:
  HaloGrid(Runtime& rt, double* grid, int n, int block, int width, const char* name,
           bool fill_strips)
      : rt_(rt) {
    const int nt = tiles_per_side(n, block);
    handles_.reset(nt, width);
    const auto w = static_cast<std::size_t>(width), t = static_cast<std::size_t>(nt);
    strips_ = std::make_unique<double[]>(4 * w * static_cast<std::size_t>(n) * t +
                                         (width > 1 ? 4 * w * w * t * t : 0));
    auto extent = [&](int i) { return static_cast<std::size_t>(std::min(block, n - i * block)); };
    auto label = [&](const char* kind, int i, int j) {
      return std::string(name) + kind + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
    };
    const auto ld = static_cast<std::size_t>(n);
    std::size_t used = 0;
    // A contiguous piece of rows x cols values, registered as a matrix of its own.
    auto piece = [&](std::size_t rows, std::size_t cols, const std::string& text) {
      double* p = strips_.get() + used;
      used += rows * cols;
      return std::pair<double*, Data>(p, rt.register_matrix(p, rows, cols, rows, text));
    };
    static constexpr const char* kSideNames[4] = {".N", ".S", ".W", ".E"};
    static constexpr const char* kCornerNames[4] = {".NW", ".NE", ".SW", ".SE"};
    try {
      for (int j = 0; j < nt; ++j)
        for (int i = 0; i < nt; ++i) {
          const std::size_t rows = extent(i), cols = extent(j);
          double* tile = grid + static_cast<long>(i) * block + static_cast<long>(j) * block * n;
          handles_.tile(i, j) = rt.register_matrix(tile, rows, cols, ld, label("", i, j));
          const int bits = neighbour_bits(i, j, nt);
          for (int side : kSides) {
            if (!(bits & side)) continue;
            // A row strip is width x cols, a column strip rows x width; both contiguous.
            const bool row = side == kNorth || side == kSouth;
            auto [strip, data] =
                piece(row ? w : rows, row ? cols : w, label(kSideNames[side_index(side)], i, j));
            handles_.strip(i, j, side) = data;
            if (fill_strips) copy_edge(tile, rows, cols, ld, side, strip, w);
          }
          if (width == 1) continue;
          for (int k : kCorners) {
            if (!has_corner(bits, k)) continue;
            auto [corner, data] = piece(w, w, label(kCornerNames[k], i, j));
            handles_.corner(i, j, k) = data;
            if (fill_strips) copy_corner(tile, rows, cols, ld, k, corner, w);
          }
        }
    } catch (...) {
      release();  // no destructor runs for an object whose constructor threw
      throw;
    }
  }
  HaloGrid(const HaloGrid&) = delete;
  HaloGrid& operator=(const HaloGrid&) = delete;
  /// Unregisters what is left, quietly: on the way out of a failure one refusal must not keep the
  /// rest registered (the caller may free the grid next).
  ~HaloGrid() { release(); }
  /// Unregisters every tile and strip, throwing what the runtime throws (a copy home that failed).
  void unregister() {
    for_each_registered(true, [&](Data& d) { rt_.unregister(d); });
  }
  void release() noexcept {
    for_each_registered(true, [&](Data& d) {
      try {
        rt_.unregister(d);
      } catch (...) {
      }
    });
  }
  /// Gives up the contents of the tiles (`tiles`) and of the strips and corners (always), once
  /// the tasks submitted so far that use them have finished: nothing of them is copied home.
  void discard(bool tiles) {
    for_each_registered(tiles, [&](Data& d) { rt_.discard(d); });
  }
  HaloHandles<Data>& handles() { return handles_; }

 private:
  // Calls fn on each registered strip and corner, and tile when `tiles`.
  template <typename Fn>
  void for_each_registered(bool tiles, Fn fn) {
    for (auto* set : {&handles_.tiles, &handles_.strips, &handles_.corners})
      if (tiles || set != &handles_.tiles)
        for (auto& d : *set)
          if (d.registered()) fn(d);
  }

  Runtime& rt_;
  HaloHandles<Data> handles_;
  std::unique_ptr<double[]> strips_;
};

}  // namespace

int tiles_per_side(int n, int block) { return block > 0 ? (n + block - 1) / block : 0; }

int narrowest_tile(int n, int block) {
  block = std::min(block, n);
  return block > 0 ? n - (tiles_per_side(n, block) - 1) * block : 0;
}

void check_temporal_block(int n, int block, int depth) {
  if (depth <= 0)
    throw UsageError("stencil: --temporal-block must be positive (got " + std::to_string(depth) +
                     ")");
  const int narrowest = narrowest_tile(n, block);
  if (depth > narrowest)
    throw UsageError("stencil: --temporal-block " + std::to_string(depth) +
                     " needs tiles at least that wide, but n = " + std::to_string(n) +
                     " in tiles of " + std::to_string(std::min(block, n)) + " leaves a tile of " +
                     std::to_string(narrowest) +
                     " (a halo of D cells must come from the neighbouring tile alone)");
}

Sweeps run_sweeps(Runtime& rt, const StencilCodelet& codelet, double* a, double* b, int n,
                  int block, int sweeps, const Coefficients& c, int depth, bool backed) {
  if (n <= 0) throw UsageError("stencil: --n must be positive (got " + std::to_string(n) + ")");
  if (block <= 0)
    throw UsageError("stencil: --block must be positive (got " + std::to_string(block) + ")");
  if (sweeps < 0) throw UsageError("stencil: --sweeps must not be negative");
  if (block > n) block = n;  // one tile
  check_temporal_block(n, block, depth);

  // a's strips are filled from its edges here, before the clock starts (the grid's
  // initialisation); b's are written by the first round before anyone reads them.
  HaloGrid grid_a(rt, a, n, block, depth, "A", backed), grid_b(rt, b, n, block, depth, "B", false);
  Sweeps s;
  s.tiles = grid_a.handles().nt;
  rt.reset_stats();
  const double start = rt.seconds();
  submit_sweeps<DataAccess>(
      grid_a.handles(), grid_b.handles(), sweeps, depth, c,
      [&](std::span<const DataAccess> accesses, int priority, const TaskArgs& args, int, int) {
        rt.submit(codelet.jacobi, accesses, priority, {},
                  std::as_bytes(std::span<const TaskArgs>(&args, 1)));
        ++s.tasks;
      });
  // The strips are the sweeps' own scratch, and so is the grid that does not hold the result:
  // only the result's tiles are brought home.
  s.rounds = rounds_for(sweeps, depth);
  grid_a.discard(s.rounds % 2 == 1);
  grid_b.discard(s.rounds % 2 == 0);
  rt.wait_all();  // writes back what is valid only on a device: counted in the time
  s.time_s = rt.seconds() - start;
  grid_a.unregister();
  grid_b.unregister();
  s.stats = rt.stats();  // after unregister, so that any final write-back is counted too
  s.result = s.rounds % 2 == 0 ? a : b;
  return s;
}

}  // namespace conveyor::apps::stencil
