#pragma once
// The per-device fixture of the stencil tests (test_stencil.cpp, test_stencil_temporal.cpp): CPU
// workers for "cpu", else the device alone (OpenCL devices without fp64 skip), and the tiled
// sweeps, in rounds of `depth` sweeps, checked cell for cell against the sequential reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "conveyor/records.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/grid.hpp"
#include "stencil/stencil.hpp"
#include "stencil/stencil_check.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::apps::stencil {

class StencilFixture : public test::PerDevice {
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
  // Runs the tiled sweeps in rounds of `depth` and expects every cell to equal the reference's.
  Sweeps expect_exact(Runtime& rt, int n, int block, int sweeps, int depth = 1) {
    SCOPED_TRACE("n " + std::to_string(n) + ", block " + std::to_string(block) + ", sweeps " +
                 std::to_string(sweeps) + ", D " + std::to_string(depth));
    std::vector<double> a(static_cast<std::size_t>(n) * n), b(a.size()), ref(a.size());
    fill_initial(a.data(), n);
    fill_initial(ref.data(), n);
    reference_sweeps(ref.data(), b.data(), n, sweeps, Coefficients{});
    Sweeps s =
        run_sweeps(rt, codelet_, a.data(), b.data(), n, block, sweeps, Coefficients{}, depth);
    const int rounds = (sweeps + depth - 1) / depth, t = tiles_per_side(n, std::min(block, n));
    EXPECT_EQ(s.tiles, t);
    EXPECT_EQ(s.rounds, rounds);
    EXPECT_EQ(s.result, rounds % 2 ? b.data() : a.data());
    EXPECT_EQ(s.tasks, static_cast<std::uint64_t>(rounds) * t * t);
    Comparison c = compare_grids(s.result, ref.data(), n);
    EXPECT_EQ(c.mismatches, 0u) << "largest difference " << c.max_abs_diff;
    return s;
  }
  StencilCodelet codelet_;
};

}  // namespace conveyor::apps::stencil
