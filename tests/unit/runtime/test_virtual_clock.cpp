// The virtual clock of simulated platforms, alone and driving the real runtime: modelled durations
// pass in virtual time, exactly, whatever the host's speed (the assertions are on virtual seconds).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "conveyor/runtime.hpp"
#include "device/driver.hpp"
#include "device/virtual_clock.hpp"
#include "runtime/testing.hpp"

namespace conveyor {
namespace {

using device::VirtualClock;

TEST(VirtualClock, FiresEventsInTimeOrderOnlyWhenNothingRuns) {
  VirtualClock clock;
  std::vector<int> order;
  std::mutex m;
  clock.running(+1);  // this thread runs: nothing may fire yet
  clock.at(2.0, [&] {
    std::lock_guard l(m);
    order.push_back(2);
  });
  clock.at(1.0, [&] {
    std::lock_guard l(m);
    order.push_back(1);
  });
  clock.at(1.0, [&] {
    std::lock_guard l(m);
    order.push_back(11);
  });  // same time: FIFO
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    std::lock_guard l(m);
    EXPECT_TRUE(order.empty());
  }
  clock.sleep_for(3.0);  // this thread waits: the clock runs through both events, then wakes it
  EXPECT_DOUBLE_EQ(clock.now_s(), 3.0);
  std::lock_guard l(m);
  EXPECT_EQ(order, (std::vector<int>{1, 11, 2}));
}

TEST(VirtualClock, SleepingThreadsWakeAtTheirOwnTimes) {
  VirtualClock clock;
  std::atomic<double> woke_a{0}, woke_b{0};
  clock.running(+2);
  std::thread a([&] {
    clock.sleep_for(5.0);
    woke_a = clock.now_s();
    clock.running(-1);
  });
  std::thread b([&] {
    clock.sleep_for(1.5);
    woke_b = clock.now_s();
    clock.sleep_for(1.0);
    clock.running(-1);
  });
  a.join();
  b.join();
  EXPECT_DOUBLE_EQ(woke_a, 5.0);
  EXPECT_DOUBLE_EQ(woke_b, 1.5);
}

/// A device whose lane takes `kernel_s` per kernel and `copy_s` per copy in virtual time; the
/// work itself happens at the modelled time on the clock's thread.
class ModelledDevice final : public device::DeviceDriver {
 public:
  ModelledDevice(VirtualClock& clock, double kernel_s, double copy_s)
      : clock_(clock), kernel_s_(kernel_s), copy_s_(copy_s) {}
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::string& id() const override { return id_; }
  std::uint64_t memory_bytes() const override { return 1ull << 30; }
  void* allocate(std::size_t bytes) override { return std::calloc(bytes, 1); }
  void deallocate(void* block) noexcept override { std::free(block); }
  void enqueue_h2d(void* dst, const device::HostRegion& src) override {
    lane(copy_s_,
         [dst, src] { copy(static_cast<char*>(dst), src.width, src.ptr, src.pitch, src); });
  }
  void enqueue_d2h(const device::HostRegion& dst, const void* src) override {
    lane(copy_s_,
         [dst, src] { copy(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst); });
  }
  void launch(const device::CodeletImpl& codelet, TaskContext& ctx) override {
    device::TaskContextAccess::set_stream(ctx, this);
    TaskContext copy_of = ctx;
    const device::CodeletImpl* c = &codelet;
    lane(kernel_s_, [c, copy_of] { c->fn(DeviceKind::Cuda)(copy_of); });
  }
  void notify(device::DoneCallback done, void* user) override {
    lane(0, [done, user] { done(user, nullptr); });
  }
  void drain_trace(std::vector<device::TimedOp>&) override {}
  device::VirtualClock* virtual_clock() override { return &clock_; }
  void copy_to_host(const device::HostRegion& dst, const void* src) override {
    clock_.sleep_for(copy_s_);
    copy(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst);
  }

 private:
  static void copy(char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
                   const device::HostRegion& shape) {
    for (std::size_t c = 0; c < shape.height; ++c)
      std::memcpy(dst + c * dst_pitch, src + c * src_pitch, shape.width);
  }
  void lane(double seconds, std::function<void()> op) {
    double start = std::max(clock_.now_s(), lane_free_s_);
    lane_free_s_ = start + seconds;
    clock_.at(lane_free_s_, std::move(op));
  }
  VirtualClock& clock_;
  double kernel_s_, copy_s_;
  double lane_free_s_ = 0;  // driver thread only
  std::string id_ = "sim:0";
};

Codelet doubler() {
  Codelet c("double");
  auto fn = [](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<int>(0)[i] *= 2;
  };
  c.cpu(fn).cuda(fn);
  return c;
}

std::unique_ptr<Runtime> simulated_runtime(VirtualClock& clock, int cpus, double kernel_s,
                                           double copy_s, const std::string& scheduler = "eager") {
  RuntimeOptions o;
  o.cpus = cpus;
  o.pin = false;
  o.scheduler = scheduler;
  o.offload = {"double"};
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::make_unique<ModelledDevice>(clock, kernel_s, copy_s));
  return runtime::RuntimeAccess::make(o, std::move(drivers));
}

TEST(VirtualClockRuntime, CpuTasksTakeTheirModelledTimeInParallel) {
  VirtualClock clock;
  clock.cpu_task_seconds = [](const device::CodeletImpl&, const TaskContext&) { return 2.0; };
  clock.run_cpu_functions = true;
  auto rt = simulated_runtime(clock, 2, 1.0, 0.0);
  std::vector<int> a(4, 1), b(4, 1);
  Data da = rt->register_vector(a.data(), a.size(), "a");
  Data db = rt->register_vector(b.data(), b.size(), "b");
  Codelet cpu_only("double_on_cpu");
  cpu_only.cpu([](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<int>(0)[i] *= 2;
  });
  rt->submit(cpu_only, {{da, Access::ReadWrite}});
  rt->submit(cpu_only, {{db, Access::ReadWrite}});
  rt->wait_all();
  EXPECT_DOUBLE_EQ(rt->seconds(), 2.0);  // two workers, one task each
  rt->submit(cpu_only, {{da, Access::ReadWrite}});
  rt->submit(cpu_only, {{da, Access::ReadWrite}});
  rt->wait_all();
  EXPECT_DOUBLE_EQ(rt->seconds(), 6.0);  // a chain: one after the other
  EXPECT_EQ(a, std::vector<int>(4, 8));
  EXPECT_EQ(b, std::vector<int>(4, 2));
}

TEST(VirtualClockRuntime, DeviceLaneAndCopiesFollowTheModel) {
  VirtualClock clock;
  clock.cpu_task_seconds = [](const device::CodeletImpl&, const TaskContext&) { return 2.0; };
  clock.run_cpu_functions = true;
  // Offloaded: every "double" runs on the device (1 s), each copy takes 0.25 s.
  auto rt = simulated_runtime(clock, 1, 1.0, 0.25, "offload");
  std::vector<int> v(8, 3);
  Data d = rt->register_vector(v.data(), v.size(), "v");
  for (int i = 0; i < 3; ++i) rt->submit(doubler(), {{d, Access::ReadWrite}});
  rt->wait_all();
  // h2d 0.25 + 3 kernels + the write-back at wait_all 0.25
  EXPECT_DOUBLE_EQ(rt->seconds(), 3.5);
  EXPECT_EQ(v, std::vector<int>(8, 24));
  auto s = rt->stats();
  EXPECT_EQ(s.h2d_copies, 1u);
  EXPECT_EQ(s.d2h_copies, 1u);
}

TEST(VirtualClockRuntime, ManyRunsGiveTheSameVirtualTime) {
  // Independent tasks on 2 CPU workers and a device, eager: whatever the host's thread timing,
  // the virtual end time is a property of the model and the scheduler's choices only.
  double first = -1;
  for (int run = 0; run < 5; ++run) {
    VirtualClock clock;
    clock.cpu_task_seconds = [](const device::CodeletImpl&, const TaskContext&) { return 1.0; };
    auto rt = simulated_runtime(clock, 2, 1.0, 0.0, "offload");
    std::vector<std::vector<int>> data(6, std::vector<int>(2, 1));
    std::vector<Data> handles;
    for (auto& x : data) handles.push_back(rt->register_vector(x.data(), x.size()));
    for (auto& h : handles) rt->submit(doubler(), {{h, Access::ReadWrite}});
    rt->wait_all();
    if (first < 0) first = rt->seconds();
    EXPECT_DOUBLE_EQ(rt->seconds(), first);
  }
  EXPECT_DOUBLE_EQ(first, 6.0);  // six 1-s kernels on one device lane
}

}  // namespace
}  // namespace conveyor
