// The tiled Jacobi stencil against the sequential reference, cell for cell and with no tolerance:
// ragged tiles, one tile, several sweeps, thin last tiles, on CPU workers and on every device
// present (opencl:0 on PoCL here; cuda:0 skips without a GPU), and out of core through a device
// memory that holds a few tiles. The halo strips: a task's buffer layout, only strips crossing to
// a device besides the grid itself, and the block distribution's messages against a direct count.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/block_grid.hpp"
#include "stencil/cpu_kernel.hpp"
#include "stencil/grid.hpp"
#include "stencil/halo.hpp"
#include "stencil/stencil.hpp"
#include "stencil/stencil_check.hpp"
#include "stencil/stencil_run.hpp"
#include "unit/apps/stencil_fixture.hpp"

namespace conveyor::apps::stencil {
namespace {

// The grid after `sweeps` sweeps, computed one cell at a time on the host.
std::vector<double> reference(int n, int sweeps) {
  std::vector<double> grid(static_cast<std::size_t>(n) * n), scratch(grid.size());
  fill_initial(grid.data(), n);
  reference_sweeps(grid.data(), scratch.data(), n, sweeps, Coefficients{});
  return grid;
}

class StencilTiles : public StencilFixture {};

TEST_P(StencilTiles, RaggedTilesEqualTheReference) {
  Runtime rt(options());
  expect_exact(rt, 37, 8, 3);  // 5 x 5 tiles, the last 5 wide
  expect_exact(rt, 17, 8, 2);  // the last row and column of tiles one cell thin
}

TEST_P(StencilTiles, OneTileEqualsTheReference) {
  Runtime rt(options());
  expect_exact(rt, 20, 32, 3);  // block > n: one tile, no neighbours
  expect_exact(rt, 2, 2, 1);    // boundary only
}

TEST_P(StencilTiles, SeveralSweepsEqualTheReference) {
  Runtime rt(options());
  expect_exact(rt, 24, 8, 6);  // even: the result is back in the first grid
  expect_exact(rt, 24, 12, 5);
}

TEST_P(StencilTiles, OutOfCoreEvictsAndStaysExact) {
  if (GetParam() == "cpu") GTEST_SKIP() << "device memory applies to devices";
  // 36 tiles of 512 bytes per grid through 8 KiB: room for 16 tiles, one task needs 6.
  Runtime rt(options(8 * 1024));
  Sweeps s = expect_exact(rt, 48, 8, 3);
  EXPECT_GT(s.stats.evictions, 0u);
  EXPECT_LE(s.stats.peak_device_bytes, 8u * 1024u);
}

TEST_P(StencilTiles, OnlyTheStripsCrossBesideTheGrid) {
  if (GetParam() == "cpu") GTEST_SKIP() << "CPU workers copy nothing";
  // One sweep on a device that holds everything: the first grid's tiles go there once, and of the
  // neighbours only their facing strips, 4 (t - 1) n values: never a whole neighbour tile.
  Runtime rt(options());
  const int n = 40, block = 16, t = 3;  // ragged: the last tiles 8 wide
  Sweeps s = expect_exact(rt, n, block, 1);
  EXPECT_EQ(s.stats.h2d_bytes, 8u * (n * n + 4 * (t - 1) * n));
  // Home comes the result alone: the first grid and every strip are scratch, discarded.
  EXPECT_EQ(s.stats.d2h_bytes, 8u * n * n);
}

TEST_P(StencilTiles, OutOfCoreSmallestRoomStaysExact) {
  if (GetParam() == "cpu") GTEST_SKIP() << "device memory applies to devices";
  // Room for one task only (2 tiles of 512 bytes and 8 strips of 64): every task evicts.
  Runtime rt(options(2 * 512 + 8 * 64));
  Sweeps s = expect_exact(rt, 24, 8, 3);
  EXPECT_GT(s.stats.evictions, 0u);
  EXPECT_LE(s.stats.peak_device_bytes, 2u * 512u + 8u * 64u);
}

CONVEYOR_INSTANTIATE_PER_DEVICE(StencilTiles);

TEST(StencilHalo, BuffersFollowTheTilesInSideOrder) {
  const int inner = neighbour_bits(1, 1, 3), corner = neighbour_bits(0, 2, 3);
  EXPECT_EQ(inner, kNorth | kSouth | kWest | kEast);
  EXPECT_EQ(corner, kSouth | kWest);  // top right: neighbours below and to the left
  EXPECT_EQ(neighbour_bits(0, 0, 1), 0);
  // Inner tile: own strips 2..5, the neighbours' 6..9, each in the order N, S, W, E.
  EXPECT_EQ(own_strip_index(inner, kNorth), 2);
  EXPECT_EQ(own_strip_index(inner, kEast), 5);
  EXPECT_EQ(neighbour_strip_index(inner, kNorth), 6);
  EXPECT_EQ(neighbour_strip_index(inner, kEast), 9);
  // Corner: own S, W at 2, 3; the neighbours' at 4, 5; none on the absent sides.
  EXPECT_EQ(own_strip_index(corner, kSouth), 2);
  EXPECT_EQ(own_strip_index(corner, kWest), 3);
  EXPECT_EQ(neighbour_strip_index(corner, kSouth), 4);
  EXPECT_EQ(neighbour_strip_index(corner, kWest), 5);
  EXPECT_EQ(own_strip_index(corner, kNorth), -1);
  EXPECT_EQ(neighbour_strip_index(corner, kEast), -1);
}

TEST(StencilHalo, CopyEdgeTakesEachSide) {
  // A 3 x 2 tile inside a grid of ld 4: element (r, c) = 10 r + c.
  std::vector<double> grid(8, -1);
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < 3; ++r) grid[r + 4 * c] = 10 * r + c;
  std::vector<double> strip(3);
  copy_edge(grid.data(), 3, 2, 4, kNorth, strip.data());
  EXPECT_EQ(strip[0], 0);
  EXPECT_EQ(strip[1], 1);
  copy_edge(grid.data(), 3, 2, 4, kSouth, strip.data());
  EXPECT_EQ(strip[1], 21);
  copy_edge(grid.data(), 3, 2, 4, kEast, strip.data());
  EXPECT_EQ(strip, (std::vector<double>{1, 11, 21}));
  EXPECT_EQ(strip_length(3, 2, kWest), 3u);
  EXPECT_EQ(strip_length(3, 2, kNorth), 2u);
}

// The closed form against a direct count of the strips that cross between ranks, with ragged
// tiles and grids with more process rows or columns than tiles.
TEST(StencilBlockGrid, ClosedFormEqualsADirectCount) {
  for (int p = 1; p <= 4; ++p)
    for (int q = 1; q <= 4; ++q)
      for (int n : {37, 64}) {
        const int block = 8, t = tiles_per_side(n, block), sweeps = 3;
        const BlockGrid g{ProcessGrid{p, q}, t};
        std::uint64_t messages = 0, bytes = 0;
        auto width = [&](int i) { return std::min(block, n - i * block); };
        for (int j = 0; j < t; ++j)
          for (int i = 0; i < t; ++i) {
            if (i + 1 < t && g.owner(i, j) != g.owner(i + 1, j))
              messages += 2, bytes += 2 * 8 * width(j);
            if (j + 1 < t && g.owner(i, j) != g.owner(i, j + 1))
              messages += 2, bytes += 2 * 8 * width(i);
          }
        Communication c = strip_messages(g, n, sweeps);
        SCOPED_TRACE(std::to_string(p) + "x" + std::to_string(q) + ", n " + std::to_string(n));
        EXPECT_EQ(c.messages, sweeps * messages);
        EXPECT_EQ(c.bytes, sweeps * bytes);
      }
}

TEST(StencilBlockGrid, RanksHoldContiguousRectangles) {
  const BlockGrid g{ProcessGrid{2, 3}, 7};
  // Tile rows 0-2 on process row 0, 3-6 on row 1; columns 0-1, 2-3, 4-6.
  EXPECT_EQ(g.process_row(2), 0);
  EXPECT_EQ(g.process_row(3), 1);
  EXPECT_EQ(g.process_col(1), 0);
  EXPECT_EQ(g.process_col(2), 1);
  EXPECT_EQ(g.process_col(4), 2);
  EXPECT_EQ(g.owner(6, 6), 5);
  std::vector<int> tiles(6, 0);
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 7; ++i) ++tiles[static_cast<std::size_t>(g.owner(i, j))];
  EXPECT_EQ(tiles, (std::vector<int>{6, 6, 9, 8, 8, 12}));
}

TEST(StencilCheck, ADifferentCellIsAMismatch) {
  std::vector<double> a(16, 1.0), b(16, 1.0);
  EXPECT_EQ(compare_grids(a.data(), b.data(), 4).mismatches, 0u);
  b[5] = 1.5;
  Comparison c = compare_grids(a.data(), b.data(), 4);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_DOUBLE_EQ(c.max_abs_diff, 0.5);
}

TEST(StencilGrid, TheBoundaryStaysAndTheInsideMoves) {
  const int n = 6;
  std::vector<double> initial(n * n), grid = reference(n, 3);
  fill_initial(initial.data(), n);
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(grid[k], initial[k]);                              // column 0
    EXPECT_EQ(grid[k * n], initial[k * n]);                      // row 0
    EXPECT_EQ(grid[(n - 1) + k * n], initial[(n - 1) + k * n]);  // row n - 1
  }
  EXPECT_NE(grid[2 + 2 * n], initial[2 + 2 * n]);
}

TEST(StencilRun, CheckedRunPassesAndCountsTheTraffic) {
  RunConfig c;
  c.n = 50;
  c.block = 16;
  c.sweeps = 4;
  c.runtime.cpus = 2;
  c.check = true;
  RunResult r = run_stencil(c);
  EXPECT_TRUE(r.checked);
  EXPECT_TRUE(r.passed()) << r.mismatches << " mismatches";
  EXPECT_EQ(r.best.tasks, 4u * 16u);
  EXPECT_GT(r.gbs, 0.0);
  EXPECT_EQ(sweep_bytes(50), 2.0 * 8 * 50 * 50);
}

TEST(StencilRun, BadConfigurationsAreUsageErrors) {
  auto expect_usage = [](RunConfig c) { EXPECT_THROW(validate(c), UsageError); };
  RunConfig c;
  c.n = 64;
  c.runtime.cpus = 1;
  RunConfig bad = c;
  bad.n = 0;
  expect_usage(bad);
  bad = c, bad.sweeps = 0;
  expect_usage(bad);
  bad = c, bad.repeat = 0;
  expect_usage(bad);
  bad = c, bad.block = -1;
  expect_usage(bad);
  bad = c, bad.runtime.cpus = 0;  // no workers at all
  expect_usage(bad);
  bad = c, bad.runtime.devices = {"nonesuch:7"};
  expect_usage(bad);
}

}  // namespace
}  // namespace conveyor::apps::stencil
