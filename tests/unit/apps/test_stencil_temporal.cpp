// Temporal blocking (--temporal-block D): D sweeps per task from strips and corners D wide, equal
// to the sequential reference cell for cell on CPU workers and on every device present (opencl:0
// on PoCL here; cuda:0 skips without a GPU), with ragged tiles, a sweep count that D does not
// divide and one tile; out of core through a small device memory, where D = 3 must copy fewer
// bytes in than D = 1 (the point of it); D below 1 or wider than a tile refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/grid.hpp"
#include "stencil/halo.hpp"
#include "stencil/stencil.hpp"
#include "stencil/stencil_check.hpp"
#include "stencil/stencil_graph.hpp"
#include "stencil/stencil_run.hpp"
#include "unit/apps/stencil_fixture.hpp"

namespace conveyor::apps::stencil {
namespace {

class StencilTemporal : public StencilFixture {};

TEST_P(StencilTemporal, RaggedTilesAndRemaindersEqualTheReference) {
  Runtime rt(options());
  expect_exact(rt, 37, 8, 7, 2);  // 5 x 5 tiles, the last 5 wide; rounds 2, 2, 2, 1
  expect_exact(rt, 37, 8, 7, 3);  // rounds 3, 3, 1
  expect_exact(rt, 26, 8, 6, 2);  // the last tiles exactly D wide: halos reach the boundary
  expect_exact(rt, 24, 8, 2, 5);  // D > T: one round of the T sweeps
}

TEST_P(StencilTemporal, OneTileEqualsTheReference) {
  Runtime rt(options());
  expect_exact(rt, 20, 32, 5, 3);  // block > n: one tile, no neighbours, no strips
}

TEST_P(StencilTemporal, OutOfCoreCopiesFewerBytesInAndStaysExact) {
  if (GetParam() == "cpu") GTEST_SKIP() << "device memory applies to devices";
  // 16 tiles of 2 KiB per grid through 12 KiB: a task with D = 3 holds 7.6 KiB, so hardly any
  // tile stays between rounds and every round copies the grid in again. Three sweeps per round
  // copy each tile in once per three sweeps, plus halos 3 wide.
  const int n = 64, block = 16, sweeps = 6;
  Runtime one(options(12 * 1024));
  Sweeps d1 = expect_exact(one, n, block, sweeps, 1);
  Runtime three(options(12 * 1024));
  Sweeps d3 = expect_exact(three, n, block, sweeps, 3);
  EXPECT_GT(d3.stats.evictions, 0u);
  EXPECT_LE(d3.stats.peak_device_bytes, 12u * 1024u);
  // D = 1 copies at least a grid in per sweep (its strips besides); D = 3 copies in per
  // round at most the grid and the halos read: t = 4 tiles per side, 4 t (t - 1) strips of
  // D x B and 4 (t - 1)^2 corners of D x D, two rounds for six sweeps.
  const std::uint64_t grid = 8u * n * n, t = 4, depth = 3;
  const std::uint64_t halo = 8u * (4 * t * (t - 1) * depth * block + 4 * (t - 1) * (t - 1) * 9);
  // Together: D = 3 copies in at most 55 % of what D = 1 does (107584 against 196608 bytes).
  // (Not half: the halos are 3 wide, and eviction keeps a few of D = 1's tiles between sweeps.)
  EXPECT_GE(d1.stats.h2d_bytes, sweeps * grid);
  EXPECT_LE(d3.stats.h2d_bytes, (sweeps / depth) * (grid + halo));
}

CONVEYOR_INSTANTIATE_PER_DEVICE(StencilTemporal);

TEST(StencilTemporalHalo, CornersFollowTheStrips) {
  const int inner = neighbour_bits(1, 1, 3), corner = neighbour_bits(0, 2, 3);
  // Inner tile, D > 1: strips at 2..9 as with D = 1, own corners 10..13, the diagonal ones 14..17.
  EXPECT_EQ(own_corner_index(inner, kNorthWest, 2), 10);
  EXPECT_EQ(own_corner_index(inner, kSouthEast, 2), 13);
  EXPECT_EQ(neighbour_corner_index(inner, kNorthWest, 2), 14);
  EXPECT_EQ(neighbour_corner_index(inner, kSouthEast, 2), 17);
  // Top right: neighbours south and west, so one corner (SW) at 6, the south-west tile's at 7.
  EXPECT_EQ(present_corners(corner), 1);
  EXPECT_EQ(own_corner_index(corner, kSouthWest, 2), 6);
  EXPECT_EQ(neighbour_corner_index(corner, kSouthWest, 2), 7);
  EXPECT_EQ(own_corner_index(corner, kNorthWest, 2), -1);
  // D = 1: no corners at all, the one-sweep layout.
  EXPECT_EQ(own_corner_index(inner, kNorthWest, 1), -1);
  EXPECT_EQ(neighbour_corner_index(inner, kSouthEast, 1), -1);
  EXPECT_EQ(opposite_corner(kNorthWest), kSouthEast);
  EXPECT_EQ(opposite_corner(kNorthEast), kSouthWest);
  EXPECT_EQ(rounds_for(7, 3), 3);
  EXPECT_EQ(rounds_for(6, 3), 2);
}

TEST(StencilTemporalHalo, BandsAndCornersAreCopiedWhole) {
  // A 4 x 3 tile inside a grid of ld 5: element (r, c) = 10 r + c.
  std::vector<double> grid(15, -1);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 4; ++r) grid[r + 5 * c] = 10 * r + c;
  std::vector<double> band(8);
  copy_edge(grid.data(), 4, 3, 5, kSouth, band.data(), 2);  // rows 2, 3: 2 x 3, ld 2
  EXPECT_EQ(std::vector<double>(band.begin(), band.begin() + 6),
            (std::vector<double>{20, 30, 21, 31, 22, 32}));
  copy_edge(grid.data(), 4, 3, 5, kEast, band.data(), 2);  // columns 1, 2: 4 x 2
  EXPECT_EQ(band, (std::vector<double>{1, 11, 21, 31, 2, 12, 22, 32}));
  copy_corner(grid.data(), 4, 3, 5, kSouthEast, band.data(), 2);
  EXPECT_EQ(std::vector<double>(band.begin(), band.begin() + 4),
            (std::vector<double>{21, 31, 22, 32}));
}

TEST(StencilTemporalRun, BadTemporalBlocksAreUsageErrors) {
  RunConfig c;
  c.n = 37;
  c.block = 8;  // the last tile 5 wide
  c.runtime.cpus = 1;
  c.temporal_block = 5;
  EXPECT_NO_THROW(validate(c));
  for (int bad : {0, -1, 6, 9}) {
    SCOPED_TRACE(bad);
    c.temporal_block = bad;
    EXPECT_THROW(validate(c), UsageError);
  }
  // run_sweeps refuses too, before registering anything.
  RuntimeOptions o;
  o.cpus = 1;
  Runtime rt(o);
  StencilCodelet codelet;
  std::vector<double> a(37 * 37), b(a.size());
  EXPECT_THROW(run_sweeps(rt, codelet, a.data(), b.data(), 37, 8, 2, {}, 6), UsageError);
  EXPECT_THROW(run_sweeps(rt, codelet, a.data(), b.data(), 37, 8, 2, {}, 0), UsageError);
}

}  // namespace
}  // namespace conveyor::apps::stencil
