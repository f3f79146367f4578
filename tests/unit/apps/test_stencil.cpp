// The tiled Jacobi stencil against the sequential reference, cell for cell and with no tolerance:
// ragged tiles, one tile, several sweeps, thin last tiles, on CPU workers and on every device
// present (opencl:0 on PoCL here; cuda:0 skips without a GPU), and out of core through a device
// memory that holds a few tiles.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/check.hpp"
#include "stencil/cpu_kernel.hpp"
#include "stencil/grid.hpp"
#include "stencil/run.hpp"
#include "stencil/stencil.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::stencil {
namespace {

// The grid after `sweeps` sweeps, computed one cell at a time on the host.
std::vector<double> reference(int n, int sweeps) {
  std::vector<double> grid(static_cast<std::size_t>(n) * n), scratch(grid.size());
  fill_initial(grid.data(), n);
  reference_sweeps(grid.data(), scratch.data(), n, sweeps, Coefficients{});
  return grid;
}

class StencilTiles : public test::PerDevice {
 protected:
  void SetUp() override {
    PerDevice::SetUp();
    if (IsSkipped()) return;
    if (device().info().kind == DeviceKind::OpenCL &&
        !device_details(device().info()).value("fp64", false))
      GTEST_SKIP() << "no cl_khr_fp64";
  }
  // CPU workers for "cpu", else the device alone, so that every task runs there.
  RuntimeOptions options(std::uint64_t device_memory = 0) const {
    RuntimeOptions o;
    o.scheduler = "eager";
    if (GetParam() == "cpu") {
      o.cpus = 2;
    } else {
      o.cpus = 0;
      o.devices = {GetParam()};
      o.device_memory_limit = device_memory;
    }
    return o;
  }
  // Runs the tiled sweeps and expects every cell to equal the reference's.
  Sweeps expect_exact(Runtime& rt, int n, int block, int sweeps) {
    SCOPED_TRACE("n " + std::to_string(n) + ", block " + std::to_string(block) + ", sweeps " +
                 std::to_string(sweeps));
    std::vector<double> a(static_cast<std::size_t>(n) * n), b(a.size());
    fill_initial(a.data(), n);
    Sweeps s = run_sweeps(rt, codelet_, a.data(), b.data(), n, block, sweeps, Coefficients{});
    EXPECT_EQ(s.result, sweeps % 2 ? b.data() : a.data());
    const int t = tiles_per_side(n, std::min(block, n));
    EXPECT_EQ(s.tiles, t);
    EXPECT_EQ(s.tasks, static_cast<std::uint64_t>(sweeps) * t * t);
    Comparison c = compare_grids(s.result, reference(n, sweeps).data(), n);
    EXPECT_EQ(c.mismatches, 0u) << "largest difference " << c.max_abs_diff;
    return s;
  }
  StencilCodelet codelet_;
};

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

CONVEYOR_INSTANTIATE_PER_DEVICE(StencilTiles);

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
