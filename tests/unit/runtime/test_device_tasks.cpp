// Tasks on devices: data moves there and back, copies are counted per policy, acquire, unregister
// and partitioning write the latest data home. The first group runs on every device present
// (RuntimePerDevice); pinning and several devices at once use emulated devices.
#include <gtest/gtest.h>

#include <vector>

#include "conveyor/runtime.hpp"
#include "unit/runtime/device_codelets.hpp"
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/runtime_devices.hpp"

namespace conveyor {
namespace {

Codelet scale() {
  Codelet c("scale");
  auto fn = [](const TaskContext& t) {
    const Buffer& b = t.buffer(0);
    for (std::size_t j = 0; j < b.cols; ++j)
      for (std::size_t i = 0; i < b.rows; ++i) t.data<double>(0)[i + j * b.ld] *= 2;
  };
  c.cpu(fn).cuda(fn);
  return c;
}

Codelet accumulate() {  // y += x
  Codelet c("accumulate");
  auto fn = [](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<double>(1)[i] += t.data<double>(0)[i];
  };
  c.cpu(fn).cuda(fn);
  return c;
}

RuntimeOptions offload_options(Coherence policy) {
  RuntimeOptions o;
  o.cpus = 2;
  o.pin = false;
  o.scheduler = "offload";
  o.offload = {"scale"};
  o.coherence = policy;
  return o;
}

class RuntimeDeviceTasksPerDevice : public test::RuntimePerDevice {
 protected:
  RuntimeOptions options(Coherence policy) const {
    RuntimeOptions o;
    o.cpus = 2;
    o.pin = false;
    o.scheduler = "offload";
    o.offload = {"scale"};
    o.coherence = policy;
    return o;
  }
  std::string device() const { return GetParam() == "emu" ? "emu:0" : GetParam(); }
};

TEST_P(RuntimeDeviceTasksPerDevice, CoherentCopiesOnlyWhatIsMissing) {
  auto rt = make_runtime(options(Coherence::Coherent));
  std::vector<int> x(64, 1), y(64, 0);
  Data dx = rt->register_vector(x.data(), x.size(), "x");
  Data dy = rt->register_vector(y.data(), y.size(), "y");
  Codelet scale = test::scale_codelet(), acc = test::accumulate_codelet();
  for (int k = 0; k < 3; ++k) rt->submit(scale, {{dx, Access::ReadWrite}});  // device
  rt->submit(acc, {{dx, Access::Read}, {dy, Access::ReadWrite}});            // CPU
  rt->wait_all();
  EXPECT_EQ(x[5], 8);
  EXPECT_EQ(y[5], 8);
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.h2d_copies, 1u);
  EXPECT_EQ(s.d2h_copies, 1u);
  EXPECT_EQ(s.device_allocations, 1u);
  EXPECT_EQ(s.tasks, 4u);
  ASSERT_EQ(s.spaces.size(), 1u);
  EXPECT_EQ(s.spaces[0].name, device());
  EXPECT_EQ(s.spaces[0].allocations, 1u);
  EXPECT_EQ(s.evictions, 0u);
  ASSERT_EQ(s.links.size(), 2u);
  EXPECT_EQ(s.links[0].from, "host");
  EXPECT_EQ(s.links[0].to, device());
  EXPECT_EQ(s.links[0].bytes, 64 * sizeof(int));
}

TEST_P(RuntimeDeviceTasksPerDevice, FreedDeviceBlocksAreReused) {
  auto rt = make_runtime(options(Coherence::Coherent));
  std::vector<int> x(64, 1);
  Codelet scale = test::scale_codelet();
  for (int round = 0; round < 3; ++round) {
    Data dx = rt->register_vector(x.data(), x.size(), "x");
    rt->submit(scale, {{dx, Access::ReadWrite}});
    rt->unregister(dx);  // its device block goes back to the cache
  }
  EXPECT_EQ(x[0], 8);
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.device_allocations, 1u);
  EXPECT_EQ(s.allocation_cache_hits, 2u);
}

TEST_P(RuntimeDeviceTasksPerDevice, NaiveCopiesAroundEachDeviceTask) {
  auto rt = make_runtime(options(Coherence::Naive));
  std::vector<int> x(64, 1);
  Data dx = rt->register_vector(x.data(), x.size(), "x");
  Codelet scale = test::scale_codelet();
  for (int k = 0; k < 3; ++k) rt->submit(scale, {{dx, Access::ReadWrite}});
  rt->wait_all();
  EXPECT_EQ(x[0], 8);
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.h2d_copies, 3u);
  EXPECT_EQ(s.d2h_copies, 3u);
}

TEST_P(RuntimeDeviceTasksPerDevice, UnregisterAndAcquireBringTheLatestDataHome) {
  auto rt = make_runtime(options(Coherence::Coherent));
  std::vector<int> x(16, 3);
  Data dx = rt->register_vector(x.data(), x.size(), "x");
  Codelet scale = test::scale_codelet();
  rt->submit(scale, {{dx, Access::ReadWrite}});
  {
    HostAccess h = rt->acquire(dx, Access::Read);
    EXPECT_EQ(h.as<int>()[0], 6);
  }
  rt->submit(scale, {{dx, Access::ReadWrite}});
  rt->unregister(dx);  // no wait_all: unregister waits for the task and copies back
  EXPECT_EQ(x[15], 12);
  EXPECT_FALSE(dx.registered());
}

TEST_P(RuntimeDeviceTasksPerDevice, DiscardedDataIsNotCopiedHome) {
  auto rt = make_runtime(options(Coherence::Coherent));
  std::vector<int> x(64, 1), y(64, 1);
  Data dx = rt->register_vector(x.data(), x.size(), "x");
  Data dy = rt->register_vector(y.data(), y.size(), "y");
  Codelet scale = test::scale_codelet();
  TaskId last = 0;
  for (int k = 0; k < 3; ++k) {
    rt->submit(scale, {{dx, Access::ReadWrite}});
    last = rt->submit(scale, {{dy, Access::ReadWrite}});
  }
  rt->discard(dy);
  EXPECT_TRUE(rt->finished(last));  // it waited for the tasks that use y
  rt->wait_all();
  EXPECT_EQ(x[63], 8);
  EXPECT_EQ(y[63], 1);  // the device's 8 never came home
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.d2h_copies, 1u);  // x alone
  EXPECT_EQ(s.d2h_bytes, x.size() * sizeof(int));
  rt->unregister(dy);
  EXPECT_EQ(rt->stats().d2h_copies, 1u);
}

TEST_P(RuntimeDeviceTasksPerDevice, DiscardedDataWrittenAgainComesHome) {
  auto rt = make_runtime(options(Coherence::Coherent));
  std::vector<int> x(16, 3);
  Data dx = rt->register_vector(x.data(), x.size(), "x");
  Codelet scale = test::scale_codelet();
  rt->submit(scale, {{dx, Access::ReadWrite}});
  rt->discard(dx);
  {
    HostAccess h = rt->acquire(dx, Access::Write);
    for (std::size_t i = 0; i < x.size(); ++i) h.as<int>()[i] = 5;
  }
  rt->submit(scale, {{dx, Access::ReadWrite}});
  rt->unregister(dx);
  EXPECT_EQ(x[0], 10);
  EXPECT_EQ(x[15], 10);
}

TEST_P(RuntimeDeviceTasksPerDevice, TilesOfAMatrixMoveWithTheirLeadingDimension) {
  auto rt = make_runtime(options(Coherence::Coherent));
  const std::size_t n = 6, ld = 8;
  std::vector<int> a(ld * n, -1);  // rows n..ld-1 are padding that must stay untouched
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) a[i + j * ld] = static_cast<int>(i + 10 * j);
  Data m = rt->register_matrix(a.data(), n, n, ld, "a");
  TileGrid tiles = rt->partition(m, 3, 2);
  ASSERT_EQ(tiles.tiles.size(), 6u);
  Codelet scale = test::scale_codelet();
  rt->submit(scale, {{tiles.at(1, 2), Access::ReadWrite}});  // rows 3..5, columns 4..5
  rt->unpartition(tiles);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < ld; ++i) {
      int want = i >= n ? -1 : static_cast<int>(i + 10 * j);
      if (i >= 3 && i < n && j >= 4) want *= 2;
      EXPECT_EQ(a[i + j * ld], want) << i << "," << j;
    }
  rt->submit(scale, {{m, Access::ReadWrite}});  // usable again
  rt->wait_all();
  EXPECT_EQ(a[1 + 1 * ld], 22);
  EXPECT_EQ(rt->stats().h2d_copies, 2u);
}

// A real device's driver measures the round trip of its completions when it opens (the filling of
// lanes and run-ahead on several devices act on it); the emulated device reports none. Bounds: a
// notify that came back (above zero) within the probe's one-second limit.
TEST_P(RuntimeDeviceTasksPerDevice, ARealDeviceKnowsTheRoundTripOfItsCompletions) {
  auto rt = make_runtime(options(Coherence::Coherent));
  const RuntimeStats s = rt->stats();
  int devices = 0;
  for (const auto& w : s.workers) {
    if (w.name.rfind("cpu", 0) == 0) {
      EXPECT_EQ(w.round_trip_seconds, -1) << w.name;
      continue;
    }
    ++devices;
    if (GetParam() == "emu") {
      EXPECT_EQ(w.round_trip_seconds, -1) << w.name;
    } else {
      EXPECT_GT(w.round_trip_seconds, 0) << w.name;
      EXPECT_LT(w.round_trip_seconds, 1) << w.name;
    }
  }
  EXPECT_EQ(devices, 1);
}

CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(RuntimeDeviceTasksPerDevice);

// pin_host page-locks through the device until unpin_host or the end of the runtime; tiles
// registered inside pinned memory move as usual.
TEST(RuntimeDeviceTasks, PinnedHostMemoryStaysPinnedUntilUnpinnedOrTheEnd) {
  auto device = std::make_unique<test::EmulatedDevice>("emu:0");
  std::shared_ptr<test::PinLog> log = device->pin_log();
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  auto rt = runtime::RuntimeAccess::make(offload_options(Coherence::Coherent), std::move(drivers));

  const std::size_t n = 30, ld = 32;
  std::vector<double> a(ld * n, 1.0), kept(64, 1.0);
  EXPECT_TRUE(rt->pin_host(a.data(), a.size() * sizeof(double)));
  EXPECT_TRUE(rt->pin_host(kept.data(), kept.size() * sizeof(double)));
  EXPECT_THROW(rt->pin_host(a.data(), 8), UsageError);  // pinned already
  EXPECT_THROW(rt->pin_host(nullptr, 8), UsageError);
  {
    std::lock_guard lock(log->mutex);
    EXPECT_EQ(log->pins, 2);
    EXPECT_EQ(log->pinned[a.data()], a.size() * sizeof(double));
  }
  Data m = rt->register_matrix(a.data(), n, n, ld, "a");
  TileGrid tiles = rt->partition(m, 15, 15);
  rt->submit(scale(), {{tiles.at(1, 1), Access::ReadWrite}});
  rt->unpartition(tiles);
  rt->unregister(m);
  EXPECT_EQ(a[29 + 29 * ld], 2.0);
  EXPECT_EQ(a[0], 1.0);
  rt->unpin_host(a.data());
  EXPECT_THROW(rt->unpin_host(a.data()), UsageError);  // not pinned any more
  {
    std::lock_guard lock(log->mutex);
    EXPECT_EQ(log->pinned.count(a.data()), 0u);
    EXPECT_EQ(log->unpins, 1);
  }
  rt.reset();  // `kept` is still pinned: the runtime unpins it on the way out
  EXPECT_TRUE(log->pinned.empty());
  EXPECT_EQ(log->unpins, 2);
}

TEST(RuntimeDeviceTasks, PinningWithoutADeviceDoesNothing) {
  RuntimeOptions options;
  options.cpus = 1;
  options.pin = false;
  Runtime rt(options);
  std::vector<double> x(1024, 1.0);
  EXPECT_FALSE(rt.pin_host(x.data(), x.size() * sizeof(double)));
  EXPECT_THROW(rt.unpin_host(x.data()), UsageError);
}

TEST(RuntimeDeviceTasks, EverySchedulerGivesTheSameResult) {
  for (const char* scheduler : {"eager", "round-robin", "offload", "locality"}) {
    RuntimeOptions o = offload_options(Coherence::Coherent);
    o.scheduler = scheduler;
    auto rt = test::make_emulated_runtime(o, 2);
    std::vector<double> x(32, 1.0), y(32, 0.0);
    Data dx = rt->register_vector(x.data(), x.size(), "x");
    Data dy = rt->register_vector(y.data(), y.size(), "y");
    for (int k = 0; k < 20; ++k) {
      rt->submit(scale(), {{dx, Access::ReadWrite}});
      rt->submit(accumulate(), {{dx, Access::Read}, {dy, Access::ReadWrite}});
    }
    rt->wait_all();
    double want = 0;
    for (int k = 1; k <= 20; ++k) want += static_cast<double>(1 << k);
    EXPECT_EQ(x[0], static_cast<double>(1 << 20)) << scheduler;
    EXPECT_EQ(y[31], want) << scheduler;
  }
}

}  // namespace
}  // namespace conveyor
