// Run-ahead on device queues (RuntimeOptions::run_ahead): a device task whose predecessors are
// still enqueued on its device's lane is enqueued behind them, ordered by the device. These tests
// hold an emulated device's lane so that whole chains are enqueued before anything runs, and
// check the order of the results, which tasks may run ahead, and failures behind which tasks were
// enqueued.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

// x = 3 x + k on every element: the result depends on the order of the steps.
struct StepArgs {
  int k;
};
void step(const TaskContext& t) {
  auto* x = t.data<long>(0);
  for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] = 3 * x[i] + t.args<StepArgs>().k;
}
long expected_after(long x, int from, int to) {
  for (int k = from; k < to; ++k) x = 3 * x + k;
  return x;
}
std::span<const std::byte> bytes_of(const StepArgs& a) {
  return {reinterpret_cast<const std::byte*>(&a), sizeof a};
}

Codelet device_step() {
  Codelet c("step");
  c.cuda(step);  // the emulated device runs "cuda" implementations on host pointers
  return c;
}

RuntimeOptions run_ahead_options(int run_ahead, int cpus = 0) {
  RuntimeOptions o;
  o.cpus = cpus;
  o.pin = false;
  o.scheduler = "eager";
  o.perf_models = "none";
  o.run_ahead = run_ahead;
  return o;
}

struct Held {
  test::EmulatedDevice* device = nullptr;
  std::unique_ptr<Runtime> rt;
  std::promise<void> go;
};

// A runtime on one emulated device (reordering: see EmulatedDevice) whose lane is held until
// release(): what is enqueued meanwhile waits.
std::unique_ptr<Held> held_runtime(RuntimeOptions options, bool reorder) {
  auto held = std::make_unique<Held>();
  auto device = std::make_unique<test::EmulatedDevice>("emu:0", 1ull << 30, false, reorder);
  held->device = device.get();
  held->device->hold(held->go.get_future().share());
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  held->rt = runtime::RuntimeAccess::make(std::move(options), std::move(drivers));
  return held;
}

// Waits (at most 30 s) until `n` tasks have been enqueued ahead.
bool wait_for_run_ahead(const Runtime& rt, std::uint64_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (rt.stats().tasks_run_ahead < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The planted wrong order: the reordering device runs the newest operation it may first, so a
// task enqueued behind its producer runs before it unless it waits for the producer's block. The
// chain's result is right only if every step ran in order.
TEST(RuntimeRunAhead, AChainEnqueuedAheadRunsInOrderOnAReorderingDevice) {
  constexpr int kSteps = 6;
  auto held = held_runtime(run_ahead_options(kSteps), true);
  Runtime& rt = *held->rt;
  std::vector<long> v(8, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet c = device_step();
  for (int k = 0; k < kSteps; ++k) {
    StepArgs a{k};
    rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
  }
  // Every step after the first is enqueued before the device has run anything.
  ASSERT_TRUE(wait_for_run_ahead(rt, kSteps - 1));
  held->go.set_value();
  rt.wait_all();
  EXPECT_EQ(v, std::vector<long>(8, expected_after(1, 0, kSteps)));
  EXPECT_EQ(rt.stats().tasks, static_cast<std::uint64_t>(kSteps));
}

// Off, nothing runs ahead: each step waits for its predecessor's completion on the host.
TEST(RuntimeRunAhead, OffNoTaskIsEnqueuedBehindAnUnfinishedPredecessor) {
  auto held = held_runtime(run_ahead_options(0), true);
  Runtime& rt = *held->rt;
  std::vector<long> v(8, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet c = device_step();
  for (int k = 0; k < 4; ++k) {
    StepArgs a{k};
    rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
  }
  held->go.set_value();
  rt.wait_all();
  EXPECT_EQ(v, std::vector<long>(8, expected_after(1, 0, 4)));
  EXPECT_EQ(rt.stats().tasks_run_ahead, 0u);
}

// The depth bound: with run_ahead = 2, at most two tasks wait on the lane for predecessors.
TEST(RuntimeRunAhead, NoMoreTasksRunAheadThanTheOptionAllows) {
  auto held = held_runtime(run_ahead_options(2), true);
  Runtime& rt = *held->rt;
  std::vector<long> v(8, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet c = device_step();
  for (int k = 0; k < 6; ++k) {
    StepArgs a{k};
    rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
  }
  ASSERT_TRUE(wait_for_run_ahead(rt, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a third would come meanwhile
  EXPECT_EQ(rt.stats().tasks_run_ahead, 2u);
  held->go.set_value();
  rt.wait_all();
  EXPECT_EQ(v, std::vector<long>(8, expected_after(1, 0, 6)));
}

// Only predecessors on the task's own lane are waited for by the device: one still running on a
// CPU worker keeps the task back until it has completed, or the task would copy in the CPU's
// input before the CPU task wrote it.
TEST(RuntimeRunAhead, ATaskWithAPredecessorOffTheLaneWaitsForIt) {
  auto held = held_runtime(run_ahead_options(4, 1), true);
  Runtime& rt = *held->rt;
  std::vector<long> x(8, 1), y(8, 1);
  Data dx = rt.register_vector(x.data(), x.size(), "x");
  Data dy = rt.register_vector(y.data(), y.size(), "y");
  Codelet slow_cpu("slow_cpu");
  slow_cpu.cpu([](const TaskContext& t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto* p = t.data<long>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) p[i] = 100;
  });
  // y = sum of the steps on y, then y += x on the device: reads x (written on the CPU) and y
  // (written on the lane).
  Codelet add("add");
  add.cuda([](const TaskContext& t) {
    auto* a = t.data<long>(0);
    const auto* b = t.data<long>(1);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) a[i] += b[i];
  });
  Codelet c = device_step();
  rt.submit(slow_cpu, {{dx, Access::Write}});
  StepArgs a{5};
  rt.submit(c, {{dy, Access::ReadWrite}}, 0, {}, bytes_of(a));
  rt.submit(add, {{dy, Access::ReadWrite}, {dx, Access::Read}});
  held->go.set_value();
  rt.wait_all();
  EXPECT_EQ(y, std::vector<long>(8, 3 * 1 + 5 + 100));
}

// A failure under run-ahead: a failing producer with consumers enqueued behind it on the same
// lane. The failure names the producer; the consumers (which the device ran on what it left) are
// not reported as done, their results are discarded, and the data keeps its last whole state.
TEST(RuntimeRunAhead, TasksEnqueuedBehindAFailingTaskAreNotRunAndTheErrorNamesIt) {
  auto held = held_runtime(run_ahead_options(4), false);
  Runtime& rt = *held->rt;
  std::vector<long> v(8, 1), w(8, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Data other = rt.register_vector(w.data(), w.size(), "w");
  Codelet c = device_step();
  Codelet boom("boom");
  boom.cuda([](const TaskContext&) { throw std::runtime_error("kaboom"); });
  StepArgs a0{0};
  rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a0));
  rt.submit(boom, {{d, Access::ReadWrite}}, 0, "boom 2");
  for (int k = 2; k < 5; ++k) {  // behind the failing task, on the same lane
    StepArgs a{k};
    rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
  }
  ASSERT_TRUE(wait_for_run_ahead(rt, 4));
  held->go.set_value();
  try {
    rt.wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("boom 2"), std::string::npos) << what;
    EXPECT_NE(what.find("kaboom"), std::string::npos) << what;
    EXPECT_NE(what.find("3 dependent tasks not run"), std::string::npos) << what;
    EXPECT_EQ(what.find("tasks failed"), std::string::npos) << what;  // only the producer failed
  }
  // The device replica the failure left is dropped: the host's memory (the state before the
  // chain) is the data's contents again; nothing of the steps behind the failure shows.
  EXPECT_EQ(v, std::vector<long>(8, 1));
  EXPECT_EQ(rt.stats().tasks, 2u);  // the first step and the failed one
  // The runtime goes on: the data is usable again, and so is other data.
  StepArgs a{7};
  rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
  rt.submit(c, {{other, Access::ReadWrite}}, 0, {}, bytes_of(a));
  EXPECT_NO_THROW(rt.wait_all());
  EXPECT_EQ(v, std::vector<long>(8, 3 + 7));
  EXPECT_EQ(w, std::vector<long>(8, 3 + 7));
}

TEST(RuntimeRunAhead, ANegativeDepthIsRefused) {
  RuntimeOptions o = run_ahead_options(-2, 1);
  EXPECT_THROW(Runtime rt(o), UsageError);
}

// The default (kRunAheadAuto) runs ahead with one device. With several, a lane takes a task ahead
// only while it holds less predicted work than its device's round trip: emulated devices report
// none (the CUDA and OpenCL drivers measure theirs), so nothing runs ahead there, while a depth
// given explicitly does.
TEST(RuntimeRunAhead, TheDefaultRunsAheadOnSeveralDevicesOnlyWhereTheirRoundTripIsKnown) {
  constexpr int kSteps = 6;
  Codelet c = device_step();
  auto submit_chain = [&](Runtime& rt, Data d) {
    for (int k = 0; k < kSteps; ++k) {
      StepArgs a{k};
      rt.submit(c, {{d, Access::ReadWrite}}, 0, {}, bytes_of(a));
    }
  };
  {
    auto held = held_runtime(run_ahead_options(RuntimeOptions::kRunAheadAuto), false);
    std::vector<long> v(8, 1);
    Data d = held->rt->register_vector(v.data(), v.size(), "v");
    submit_chain(*held->rt, d);
    EXPECT_TRUE(wait_for_run_ahead(*held->rt, kSteps - 1));
    held->go.set_value();
    held->rt->wait_all();
    EXPECT_EQ(v, std::vector<long>(8, expected_after(1, 0, kSteps)));
  }
  for (int depth : {RuntimeOptions::kRunAheadAuto, kSteps}) {
    std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
    for (const char* name : {"emu:0", "emu:1"})
      drivers.push_back(std::make_unique<test::EmulatedDevice>(name, 1ull << 30, false, false));
    std::promise<void> go;
    std::shared_future<void> gate = go.get_future().share();
    for (auto& driver : drivers) static_cast<test::EmulatedDevice&>(*driver).hold(gate);
    auto rt = runtime::RuntimeAccess::make(run_ahead_options(depth), std::move(drivers));
    std::vector<long> v(8, 1);
    Data d = rt->register_vector(v.data(), v.size(), "v");
    submit_chain(*rt, d);
    if (depth > 0) EXPECT_TRUE(wait_for_run_ahead(*rt, kSteps - 1)) << depth;
    go.set_value();
    rt->wait_all();
    EXPECT_EQ(rt->stats().tasks_run_ahead, depth > 0 ? kSteps - 1u : 0u) << depth;
    EXPECT_EQ(v, std::vector<long>(8, expected_after(1, 0, kSteps)));
  }
}

}  // namespace
}  // namespace conveyor
