// A strided device home (Runtime::register_device_matrix_bytes with ld > rows: a tile of a larger
// column-major matrix in device memory), on the emulated device, whose "device memory" is host
// memory a test reads directly: the runtime gives the tile a contiguous block on the device, filled
// from the region at registration; tasks there use that block (nothing goes through the host);
// wait_all, unregister and the runtime's end copy it back into the region, and only there: the
// rest of the larger matrix is never written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"
#include "unit/runtime/device_codelets.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

// A 16 x 8 int matrix (ld 16) holding -1, with the 8 x 4 tile at (2, 1) holding 0, 1, ..., 31 in
// column order.
constexpr std::size_t kLd = 16, kCols = 8, kRows = 8, kTileCols = 4, kRow0 = 2, kCol0 = 1;
constexpr std::size_t kOffset = kRow0 + kCol0 * kLd;

bool in_tile(std::size_t i, std::size_t j) {
  return i >= kRow0 && i < kRow0 + kRows && j >= kCol0 && j < kCol0 + kTileCols;
}
int tile_value(std::size_t i, std::size_t j) {
  return static_cast<int>((i - kRow0) + (j - kCol0) * kRows);
}
std::vector<int> initial_matrix() {
  std::vector<int> m(kLd * kCols, -1);
  for (std::size_t j = 0; j < kCols; ++j)
    for (std::size_t i = 0; i < kLd; ++i)
      if (in_tile(i, j)) m[i + j * kLd] = tile_value(i, j);
  return m;
}

// The matrix holds factor * the tile's initial values in the tile, -1 elsewhere.
void expect_tile_times(const int* m, int factor) {
  for (std::size_t j = 0; j < kCols; ++j)
    for (std::size_t i = 0; i < kLd; ++i)
      ASSERT_EQ(m[i + j * kLd], in_tile(i, j) ? factor * tile_value(i, j) : -1)
          << "at (" << i << ", " << j << ")";
}

struct StridedRig {
  test::EmulatedDevice* device = nullptr;
  std::unique_ptr<Runtime> rt;
  std::shared_ptr<std::byte[]> block;  // the larger matrix, emu:0's memory
  int* matrix() const { return reinterpret_cast<int*>(block.get()); }
  Data register_tile() {
    return rt->register_device_matrix("emu:0", matrix() + kOffset, kRows, kTileCols, kLd, "t");
  }
};

// emu:0's tasks: the codelets named in `offload`; the rest on `cpus` CPU workers.
StridedRig make_rig(std::vector<std::string> offload, int cpus) {
  RuntimeOptions o;
  o.cpus = cpus;
  o.scheduler = "offload";
  o.offload = std::move(offload);
  o.pin = false;
  o.perf_models = "none";
  StridedRig rig;
  auto device = std::make_unique<test::EmulatedDevice>("emu:0");
  rig.device = device.get();
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  rig.rt = runtime::RuntimeAccess::make(std::move(o), std::move(drivers));
  rig.block = rig.device->hand_out(kLd * kCols * sizeof(int));
  std::vector<int> m = initial_matrix();
  std::copy(m.begin(), m.end(), rig.matrix());
  return rig;
}

// Copies the tile (Read) into `*out`, column by column, on the CPUs only.
Codelet cpu_read_tile(std::vector<int>* out) {
  Codelet c("cpu_read_tile");
  c.cpu([out](const TaskContext& t) {
    const Buffer& b = t.buffer(0);
    out->clear();
    for (std::size_t j = 0; j < b.cols; ++j)
      for (std::size_t i = 0; i < b.rows; ++i) out->push_back(t.data<int>(0)[i + j * b.ld]);
  });
  return c;
}

TEST(StridedDeviceHome, ATaskChainOnItsDeviceCopiesNothingThroughTheHost) {
  StridedRig rig = make_rig({"scale"}, 0);
  Data t = rig.register_tile();
  EXPECT_EQ(rig.device->allocations_.load(), 1);  // the tile's contiguous block
  EXPECT_EQ(rig.device->device_2d_copies(), 1);   // filled from the region
  Codelet scale = test::scale_codelet();
  for (int k = 0; k < 3; ++k) rig.rt->submit(scale, {{t, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.tasks, 3u);
  EXPECT_EQ(s.total_copies(), 0u);
  EXPECT_EQ(s.device_allocations, 0u);           // the home's block is not a replica of the cache
  EXPECT_EQ(rig.device->device_2d_copies(), 2);  // and back once
  expect_tile_times(rig.matrix(), 8);
  rig.rt->wait_all();  // no write since: nothing to copy
  EXPECT_EQ(rig.device->device_2d_copies(), 2);
  rig.rt->unregister(t);
  EXPECT_EQ(rig.device->device_2d_copies(), 2);
  EXPECT_EQ(rig.device->frees_.load(), 1);
  EXPECT_EQ(rig.rt->stats().total_copies(), 0u);
  expect_tile_times(rig.matrix(), 8);
}

TEST(StridedDeviceHome, ACpuReaderGetsTheDeviceValuesAndACpuWriteGoesBackToTheRegion) {
  StridedRig rig = make_rig({"scale"}, 1);
  Data t = rig.register_tile();
  Codelet scale = test::scale_codelet();
  std::vector<int> seen;
  Codelet read = cpu_read_tile(&seen);
  rig.rt->submit(scale, {{t, Access::ReadWrite}});  // on emu:0
  rig.rt->submit(read, {{t, Access::Read}});        // one copy out
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2h_copies, 1u);
  EXPECT_EQ(s.h2d_copies, 0u);
  ASSERT_EQ(seen.size(), kRows * kTileCols);
  for (std::size_t k = 0; k < seen.size(); ++k) ASSERT_EQ(seen[k], 2 * static_cast<int>(k));
  expect_tile_times(rig.matrix(), 2);

  {  // a host write: back to the device block, then into the region
    HostAccess write = rig.rt->acquire(t, Access::ReadWrite);
    for (std::size_t k = 0; k < kRows * kTileCols; ++k) write.as<int>()[k] *= 5;
  }
  rig.rt->wait_all();
  EXPECT_EQ(rig.rt->stats().h2d_copies, 1u);
  expect_tile_times(rig.matrix(), 10);
}

TEST(StridedDeviceHome, UnregisterAndTheRuntimesEndLeaveTheRegionCurrent) {
  StridedRig rig = make_rig({"scale"}, 1);
  Data t = rig.register_tile();
  Codelet scale = test::scale_codelet();
  rig.rt->submit(scale, {{t, Access::ReadWrite}});
  rig.rt->unregister(t);  // no wait_all
  expect_tile_times(rig.matrix(), 2);
  EXPECT_EQ(rig.device->frees_.load(), 1);

  Data again = rig.register_tile();
  rig.rt->submit(scale, {{again, Access::ReadWrite}});
  std::shared_ptr<std::byte[]> block = rig.block;
  rig.rt.reset();  // the runtime's end, with `again` still registered
  expect_tile_times(reinterpret_cast<int*>(block.get()), 4);
}

TEST(StridedDeviceHome, AFailedCopyBackKeepsTheDataWholeForAnotherTry) {
  StridedRig rig = make_rig({"scale"}, 0);
  Data t = rig.register_tile();
  Codelet scale = test::scale_codelet();
  rig.rt->submit(scale, {{t, Access::ReadWrite}});
  rig.device->fail_device_2d_ = true;
  EXPECT_THROW(rig.rt->unregister(t), DeviceError);
  EXPECT_TRUE(t.registered());
  expect_tile_times(rig.matrix(), 1);               // the region as it was
  rig.rt->submit(scale, {{t, Access::ReadWrite}});  // the block still holds the latest values
  rig.rt->unregister(t);
  expect_tile_times(rig.matrix(), 4);
  EXPECT_EQ(rig.device->frees_.load(), 1);
}

TEST(StridedDeviceHome, ARegionPastTheDevicesBlockIsRefused) {
  StridedRig rig = make_rig({"scale"}, 0);
  // 8 rows of 5 columns, 16 apart from the tile's start: the last column ends past the block.
  try {
    rig.rt->register_device_matrix("emu:0", rig.matrix() + kOffset + 4 * kLd, kRows, 5, kLd, "t");
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(" in a block of "), std::string::npos) << e.what();
  }
  EXPECT_EQ(rig.device->allocations_.load(), 0);
}

// The same on a real GPU, where one is present: a tile of a cudaMalloc'd matrix, scaled by
// cuda:0's kernels, comes back into its region only.
TEST(StridedDeviceHome, OnCudaTheRegionIsCopiedBack) {
  bool present = false;
  for (const auto& d : all_devices()) present |= d->info().id == "cuda:0";
  if (!present) GTEST_SKIP() << "cuda:0 is not present on this machine";
  std::vector<int> m = initial_matrix();
  const std::size_t bytes = m.size() * sizeof(int);
  std::unique_ptr<void, void (*)(void*)> block(test::cuda::device_alloc(0, bytes),
                                               test::cuda::device_free);
  test::cuda::copy_to_device(block.get(), m.data(), bytes);
  {
    RuntimeOptions o;
    o.cpus = 1;
    o.scheduler = "offload";
    o.offload = {"scale"};
    o.devices = {"cuda:0"};
    o.pin = false;
    o.perf_models = "none";
    Runtime rt(o);
    Data t = rt.register_device_matrix("cuda:0", static_cast<int*>(block.get()) + kOffset, kRows,
                                       kTileCols, kLd, "t");
    Codelet scale = test::scale_codelet();
    for (int k = 0; k < 3; ++k) rt.submit(scale, {{t, Access::ReadWrite}});
    rt.wait_all();
    EXPECT_EQ(rt.stats().total_copies(), 0u);
    rt.unregister(t);
  }
  test::cuda::copy_from_device(m.data(), block.get(), bytes);
  expect_tile_times(m.data(), 8);
}

}  // namespace
}  // namespace conveyor
