#include "stencil/stencil.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "stencil/graph.hpp"
#include "stencil/halo.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

// The tiles of one grid and their edge strips, registered one by one: Runtime::partition wants
// tiles that divide the matrix, and a ragged last row and column of tiles is what the stencil must
// allow. The tiles are views of the grid; the strips live in memory of their own (4 n t values at
// most), filled from the grid's edges when `fill_strips` (the grid the first sweep reads).
class HaloGrid {
 public:
  HaloGrid(Runtime& rt, double* grid, int n, int block, const char* name, bool fill_strips)
      : rt_(rt) {
    const int nt = tiles_per_side(n, block);
    handles_.reset(nt);
    strips_ = std::make_unique<double[]>(4 * static_cast<std::size_t>(n) * nt);
    auto width = [&](int i) { return static_cast<std::size_t>(std::min(block, n - i * block)); };
    auto label = [&](const char* kind, int i, int j) {
      return std::string(name) + kind + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
    };
    const auto ld = static_cast<std::size_t>(n);
    std::size_t used = 0;
    try {
      for (int j = 0; j < nt; ++j)
        for (int i = 0; i < nt; ++i) {
          const std::size_t rows = width(i), cols = width(j);
          double* tile = grid + static_cast<long>(i) * block + static_cast<long>(j) * block * n;
          handles_.tile(i, j) = rt.register_matrix(tile, rows, cols, ld, label("", i, j));
          const int bits = neighbour_bits(i, j, nt);
          for (int side : kSides) {
            if (!(bits & side)) continue;
            double* strip = strips_.get() + used;
            used += strip_length(rows, cols, side);
            if (fill_strips) copy_edge(tile, rows, cols, ld, side, strip);
            // A row strip is 1 x cols, a column strip rows x 1; both contiguous.
            const bool row = side == kNorth || side == kSouth;
            handles_.strip(i, j, side) =
                rt.register_matrix(strip, row ? 1 : rows, row ? cols : 1, row ? 1 : rows,
                                   label(side == kNorth   ? ".N"
                                         : side == kSouth ? ".S"
                                         : side == kWest  ? ".W"
                                                          : ".E",
                                         i, j));
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
    for (auto* set : {&handles_.tiles, &handles_.strips})
      for (auto& d : *set)
        if (d.registered()) rt_.unregister(d);
  }
  void release() noexcept {
    for (auto* set : {&handles_.tiles, &handles_.strips})
      for (auto& d : *set) try {
          if (d.registered()) rt_.unregister(d);
        } catch (...) {
        }
  }
  HaloHandles<Data>& handles() { return handles_; }

 private:
  Runtime& rt_;
  HaloHandles<Data> handles_;
  std::unique_ptr<double[]> strips_;
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

  // a's strips are filled from its edges here, before the clock starts (the grid's
  // initialisation); b's are written by the first sweep before anyone reads them.
  HaloGrid grid_a(rt, a, n, block, "A", true), grid_b(rt, b, n, block, "B", false);
  Sweeps s;
  s.tiles = grid_a.handles().nt;
  rt.reset_stats();
  const double start = rt.seconds();
  submit_sweeps<DataAccess>(
      grid_a.handles(), grid_b.handles(), sweeps, c,
      [&](std::span<const DataAccess> accesses, int priority, const TaskArgs& args, int, int) {
        rt.submit(codelet.jacobi, accesses, priority, {},
                  std::as_bytes(std::span<const TaskArgs>(&args, 1)));
        ++s.tasks;
      });
  rt.wait_all();  // writes back what is valid only on a device: counted in the time
  s.time_s = rt.seconds() - start;
  grid_a.unregister();
  grid_b.unregister();
  s.stats = rt.stats();  // after unregister, so that any final write-back is counted too
  s.result = sweeps % 2 == 0 ? a : b;
  return s;
}

}  // namespace conveyor::apps::stencil
