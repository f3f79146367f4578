#include "stencil/stencil_distributed.hpp"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/distributed_runs.hpp"
#include "common/median.hpp"
#include "common/memory_check.hpp"
#include "conveyor/error.hpp"
#include "stencil/grid.hpp"
#include "stencil/halo.hpp"
#include "stencil/stencil.hpp"
#include "stencil/stencil_check.hpp"
#include "stencil/stencil_graph.hpp"

namespace conveyor::apps::stencil {
namespace {

struct Layout {
  int n, block, nt;
  BlockGrid blocks;
  bool backed;  // false: a simulated cluster that runs no kernels (addresses only)
  std::size_t width(int i) const {
    return static_cast<std::size_t>(std::min(block, n - i * block));
  }
};

// One grid as this rank sees it: every tile's and strip's handle, and the memory of the ones this
// rank owns (each tile in a block of its own, ld = rows, followed by its strips).
struct RankGrid {
  HaloHandles<DistributedData> handles;
  std::vector<std::unique_ptr<common::HostMatrix<double>>> own;
};

std::string label(const char* grid, const char* kind, int i, int j) {
  return std::string(grid) + kind + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

const char* side_name(int side) {
  return side == kNorth ? ".N" : side == kSouth ? ".S" : side == kWest ? ".W" : ".E";
}

// Registers every tile and strip of one grid on every rank, in the same order. The owner fills
// its tiles and their strips with the initial values when `initial` (the grid the first sweep
// reads). On rank 0 with the check, the tiles of the result grid are views of `full` (ld n), so
// that the tiles gathered at the end land there; strips always live in the owner's own memory.
void register_grid(Distributed& dist, const Layout& l, RankGrid& g, const char* name, bool initial,
                   double* full) {
  g.handles.reset(l.nt);
  g.own.clear();
  for (int j = 0; j < l.nt; ++j)
    for (int i = 0; i < l.nt; ++i) {
      const int owner = l.blocks.owner(i, j);
      const bool mine = owner == dist.rank();
      const std::size_t rows = l.width(i), cols = l.width(j);
      double* tile = nullptr;
      double* strips = nullptr;
      std::size_t ld = rows;
      if (mine) {
        const std::size_t tile_elements = full ? 0 : rows * cols;
        g.own.push_back(std::make_unique<common::HostMatrix<double>>(
            tile_elements + 2 * (rows + cols), l.backed));
        tile = g.own.back()->data();
        strips = tile + tile_elements;
      }
      if (full) {
        tile = full + static_cast<long>(i) * l.block + static_cast<long>(j) * l.block * l.n;
        ld = static_cast<std::size_t>(l.n);
      }
      const bool fill = mine && l.backed && initial;
      if (fill)
        for (std::size_t c = 0; c < cols; ++c)
          for (std::size_t r = 0; r < rows; ++r)
            tile[r + c * ld] =
                initial_value(i * l.block + static_cast<int>(r), j * l.block + static_cast<int>(c));
      g.handles.tile(i, j) =
          dist.register_matrix(tile, rows, cols, ld, owner, label(name, "", i, j));
      const int bits = neighbour_bits(i, j, l.nt);
      std::size_t offset = 0;
      for (int side : kSides) {
        if (!(bits & side)) continue;
        double* strip = strips ? strips + offset : nullptr;
        offset += strip_length(rows, cols, side);
        if (fill) copy_edge(tile, rows, cols, ld, side, strip);
        const bool row = side == kNorth || side == kSouth;
        g.handles.strip(i, j, side) =
            dist.register_matrix(strip, row ? 1 : rows, row ? cols : 1, row ? 1 : rows, owner,
                                 label(name, side_name(side), i, j));
      }
    }
}

void unregister_grid(Distributed& dist, RankGrid& g) {
  for (auto* set : {&g.handles.tiles, &g.handles.strips})
    for (auto& d : *set)
      if (d.registered()) dist.unregister(d);
}

}  // namespace

DistributedResult run_distributed(Distributed& dist, const DistributedConfig& cfg) {
  common::validate_distributed("stencil", dist, cfg.n, cfg.block, cfg.repeat, cfg.grid, cfg.check);
  if (cfg.sweeps <= 0)
    throw UsageError("stencil: --sweeps must be positive (got " + std::to_string(cfg.sweeps) + ")");
  const RuntimeOptions& options = dist.runtime().options();
  const bool simulated = !options.platform.empty();
  const int block = std::min(cfg.block, cfg.n);
  const int nt = tiles_per_side(cfg.n, block);
  const Layout layout{cfg.n, block, nt, BlockGrid{cfg.grid, nt},
                      !simulated || options.platform_run_kernels};
  const bool root = dist.rank() == 0;
  const bool result_in_b = cfg.sweeps % 2 == 1;
  StencilCodelet codelet(simulated);

  DistributedResult result;
  result.tiles = nt;
  result.tasks = static_cast<std::uint64_t>(cfg.sweeps) * nt * nt;
  result.expected = strip_messages(layout.blocks, cfg.n, cfg.sweeps);
  std::vector<double> full;
  if (cfg.check && root) full.resize(static_cast<std::size_t>(cfg.n) * cfg.n);

  // Each rank alone, on its own runtime, as `conveyor stencil` warms up: the OpenCL program's
  // build and the workers' start are not timed. Not on a simulated cluster, where it would only
  // move the virtual clock.
  if (cfg.warmup && !simulated) {
    const int wb = std::min(block, 64), wn = 3 * wb;
    std::vector<double> wa(static_cast<std::size_t>(wn) * wn), wbuf(wa.size());
    fill_initial(wa.data(), wn);
    run_sweeps(dist.runtime(), codelet, wa.data(), wbuf.data(), wn, wb, 2, cfg.coefficients);
  }

  RankGrid a, b;
  double* full_a = !full.empty() && !result_in_b ? full.data() : nullptr;
  double* full_b = !full.empty() && result_in_b ? full.data() : nullptr;
  auto unregister_all = [&] {
    unregister_grid(dist, a);
    unregister_grid(dist, b);
  };
  common::timed_runs(
      dist, cfg.repeat, cfg.progress, result,
      [&] {
        register_grid(dist, layout, a, "A", true, full_a);
        register_grid(dist, layout, b, "B", false, full_b);
      },
      [&] {
        // One sweep per task: temporal blocking is not offered on several ranks (the CLI refuses
        // --temporal-block > 1 with --grid), so the closed form stays the strips'.
        submit_sweeps<DistributedAccess>(a.handles, b.handles, cfg.sweeps, 1, cfg.coefficients,
                                         [&](std::span<const DistributedAccess> accesses,
                                             int priority, const TaskArgs& args, int, int) {
                                           dist.submit(
                                               codelet.jacobi, accesses, priority, {},
                                               std::as_bytes(std::span<const TaskArgs>(&args, 1)));
                                         });
      },
      unregister_all);
  result.median_time_s = common::median(result.times_s);
  result.gbs = cfg.sweeps * sweep_bytes(cfg.n) / result.time_s / 1e9;

  if (cfg.check) {
    // The result's tiles to rank 0 (the strips are copies of their edges), then the sequential
    // reference there; every rank learns the outcome.
    dist.reset_stats();
    for (auto& d : (result_in_b ? b : a).handles.tiles) dist.gather(d, 0);
    dist.wait_all();
    for (const auto& st : dist.all_stats()) result.gather_messages += st.messages_sent;
    Comparison cmp;
    if (root) {
      std::vector<double> reference(full.size()), scratch(full.size());
      fill_initial(reference.data(), cfg.n);
      reference_sweeps(reference.data(), scratch.data(), cfg.n, cfg.sweeps, cfg.coefficients);
      cmp = compare_grids(full.data(), reference.data(), cfg.n);
    }
    dist.broadcast(&cmp, sizeof cmp, 0);
    result.checked = true;
    result.mismatches = cmp.mismatches;
    result.max_abs_diff = cmp.max_abs_diff;
  }
  unregister_all();
  return result;
}

}  // namespace conveyor::apps::stencil
