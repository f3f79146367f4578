// The model schedulers' placements with an emulated device and synthetic costs: models written to
// the test's own file before the runtime starts, implementations that sleep the modelled times.
// Asserts where tasks ran, never how long they took.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "runtime/perfmodel/models.hpp"
#include "scratch_dir.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

using runtime::perfmodel::PerfModels;
using runtime::perfmodel::TaskShape;

constexpr std::size_t kElems = 1000;  // one vector of doubles per task
constexpr int kTasks = 16;

// One private directory per test process, removed at exit.
const std::filesystem::path& temp_dir() {
  static test::ScratchDir dir;
  return dir.dir();
}

void sleep_ms(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

// "work": its CPU and device implementations take the modelled times.
Codelet work(double cpu_ms, double device_ms) {
  Codelet c("work");
  c.cpu([cpu_ms](const TaskContext& t) {
    t.data<double>(t.size() - 1)[0] += 1;
    sleep_ms(cpu_ms);
  });
  c.cuda([device_ms](const TaskContext& t) {
    t.data<double>(t.size() - 1)[0] += 1;
    sleep_ms(device_ms);
  });
  return c;
}

struct Synthetic {
  double cpu_ms = 10, device_ms = 1;
  double latency_us = 1, bw_gbs = 1000;
  int spikes = 0;                          // device samples measured at 100x
  double big_cpu_s = 0, big_device_s = 0;  // > 0: also "big" on one vector, there
};

// Models of "work" on (gate, x) or (x) buffers, as if measured on this machine.
std::filesystem::path write_models(const std::string& name, const Synthetic& s, bool gate) {
  PerfModels m;
  m.machine = current_machine();
  std::vector<std::size_t> sizes;
  if (gate) sizes.push_back(sizeof(double));
  sizes.push_back(kElems * sizeof(double));
  TaskShape shape{runtime::perfmodel::footprint(sizes), 0, 0};
  for (auto b : sizes) shape.bytes += b;
  for (int i = 0; i < 20; ++i) {
    m.record("work", "cpu", shape, s.cpu_ms * 1e-3);
    m.record("work", "emu:0", shape, s.device_ms * 1e-3 * (i < s.spikes ? 100 : 1));
  }
  const std::vector<std::size_t> one{kElems * sizeof(double)};
  TaskShape big{runtime::perfmodel::footprint(one), one[0], 0};
  for (int i = 0; i < 20; ++i) {
    if (s.big_cpu_s > 0) m.record("big", "cpu", big, s.big_cpu_s);
    if (s.big_device_s > 0) m.record("big", "emu:0", big, s.big_device_s);
  }
  m.links()["emu:0"] = {s.latency_us, s.bw_gbs, "measured"};
  auto path = temp_dir() / (name + ".json");
  m.save(path);
  return path;
}

RuntimeOptions options(const std::filesystem::path& models, const char* scheduler = "model") {
  RuntimeOptions o;
  o.cpus = 1;
  o.pin = false;
  o.scheduler = scheduler;
  o.perf_models = models.string();
  o.calibration = (temp_dir() / "no-calibration.json").string();
  return o;
}

struct Counts {
  std::uint64_t cpu = 0, device = 0, calibration = 0;
};

// kTasks independent tasks made ready at once (they wait on a host access to a gate), so that
// every placement is decided from the injected models, before any measurement comes back.
Counts run_gated_on(Runtime& runtime, const Synthetic& s) {
  Runtime* rt = &runtime;
  double gate_value = 0;
  std::vector<std::vector<double>> xs(kTasks, std::vector<double>(kElems, 0.0));
  Data gate = rt->register_vector(&gate_value, 1, "gate");
  std::vector<Data> data;
  for (auto& x : xs) data.push_back(rt->register_vector(x.data(), x.size(), "x"));
  Codelet c = work(s.cpu_ms, s.device_ms);
  {
    HostAccess hold = rt->acquire(gate, Access::Write);
    for (auto& d : data) rt->submit(c, {{gate, Access::Read}, {d, Access::ReadWrite}});
  }
  rt->wait_all();
  for (const auto& x : xs) EXPECT_EQ(x[0], 1.0);
  RuntimeStats st = rt->stats();
  return {st.workers[0].tasks, st.workers[1].tasks, st.calibration_tasks};
}
Counts run_gated(const RuntimeOptions& o, const Synthetic& s) {
  auto rt = test::make_emulated_runtime(o);
  EXPECT_EQ(rt->stats().scheduler, o.scheduler);
  return run_gated_on(*rt, s);
}

class ModelScheduler : public ::testing::TestWithParam<const char*> {};

TEST_P(ModelScheduler, FasterDeviceWinsWhenCopiesAreCheap) {
  Synthetic s;  // device 10x faster, 1000 GB/s link
  Counts n = run_gated(options(write_models("cheap", s, true), GetParam()), s);
  EXPECT_EQ(n.calibration, 0u);
  EXPECT_GT(n.device, 2 * n.cpu) << n.cpu << " on the CPU, " << n.device << " on the device";
  EXPECT_GT(n.cpu, 0u) << "the CPU should take some once the device's queue is long enough";
}

TEST_P(ModelScheduler, DataStaysWhereItIsWhenCopiesDominate) {
  Synthetic s;
  s.latency_us = 1e6;  // a copy costs a second: more than the whole graph on the CPU
  Counts n = run_gated(options(write_models("dear", s, true), GetParam()), s);
  EXPECT_EQ(n.device, 0u);
  EXPECT_EQ(n.cpu, static_cast<std::uint64_t>(kTasks));
}

TEST_P(ModelScheduler, SpikesInTheHistoryDoNotDerailPlacement) {
  Synthetic s;
  s.spikes = 3;  // 3 of the device's 20 samples at 100x
  Counts n = run_gated(options(write_models("spikes", s, true), GetParam()), s);
  EXPECT_GT(n.device, 2 * n.cpu) << n.cpu << " on the CPU, " << n.device << " on the device";
}

TEST_P(ModelScheduler, SlowerDeviceKeepsTheDataItHolds) {
  // x is produced on the device; work is 10x faster on the CPU, but the copy home costs 1 s.
  Synthetic s;
  s.cpu_ms = 1;
  s.device_ms = 10;
  s.latency_us = 1e6;
  auto rt = test::make_emulated_runtime(options(write_models("holder", s, false), GetParam()));
  Codelet produce("produce");
  produce.cuda([](const TaskContext& t) { t.data<double>(0)[0] = 41; });
  Codelet c = work(s.cpu_ms, s.device_ms);
  std::vector<std::vector<double>> xs(4, std::vector<double>(kElems, 0.0));
  for (auto& x : xs) {
    Data d = rt->register_vector(x.data(), x.size(), "x");
    rt->submit(produce, {{d, Access::ReadWrite}});
    rt->submit(c, {{d, Access::ReadWrite}});
  }
  rt->wait_all();
  for (const auto& x : xs) EXPECT_EQ(x[0], 42.0);
  RuntimeStats st = rt->stats();
  EXPECT_EQ(st.workers[0].tasks, 0u) << "a work task copied its data home to the CPU";
  EXPECT_EQ(st.workers[1].tasks, 8u);
}

TEST_P(ModelScheduler, CalibratesAnUnmeasuredCodeletOnEveryKindAndSavesTheModels) {
  auto path = temp_dir() / (std::string("calibrate_") + GetParam() + ".json");
  std::filesystem::remove(path);
  Synthetic s;
  s.cpu_ms = 1;
  s.device_ms = 1;
  {
    RuntimeOptions o = options(path, GetParam());
    o.calibrate = true;
    auto rt = test::make_emulated_runtime(o);
    std::vector<std::vector<double>> xs(kTasks, std::vector<double>(kElems, 0.0));
    Codelet c = work(s.cpu_ms, s.device_ms);
    for (auto& x : xs) {
      Data d = rt->register_vector(x.data(), x.size(), "x");
      rt->submit(c, {{d, Access::ReadWrite}});
    }
    rt->wait_all();
    RuntimeStats st = rt->stats();
    EXPECT_GT(st.calibration_tasks, 0u);
    EXPECT_GT(st.workers[0].tasks, 0u);
    EXPECT_GT(st.workers[1].tasks, 0u);
  }
  PerfModels saved = PerfModels::load(path, current_machine());
  EXPECT_GT(saved.samples("work", "cpu"), 0u);
  EXPECT_GT(saved.samples("work", "emu:0"), 0u);
  EXPECT_EQ(saved.links().count("emu:0"), 1u);  // measured at first use, cached
}

TEST_P(ModelScheduler, ACorruptModelsFileIsOneLineAndReplaced) {
  auto path = temp_dir() / (std::string("corrupt_") + GetParam() + ".json");
  std::ofstream(path) << "{\"conveyor_perfmodels\": 1, \"models\": [";
  ::testing::internal::CaptureStderr();
  {
    auto rt = test::make_emulated_runtime(options(path, GetParam()));
    std::vector<double> x(kElems, 0.0);
    Data d = rt->register_vector(x.data(), x.size(), "x");
    Codelet c = work(0.1, 0.1);
    rt->submit(c, {{d, Access::ReadWrite}});
    rt->wait_all();
  }
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not valid JSON"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NO_THROW(PerfModels::load(path, current_machine()));  // rewritten at the end
}

INSTANTIATE_TEST_SUITE_P(Policies, ModelScheduler, ::testing::Values("model", "model-ready"),
                         [](const auto& info) {
                           return std::string(info.param) == "model" ? "model" : "model_ready";
                         });

// model-ready's own rule: among the tasks queued for a device, the one whose data is already there
// runs first. Eight tasks that only the device can run become ready at once; the odd ones' vectors
// were left on the device by an earlier task. One task in flight at a time, so the device's order
// of execution is the order in which it took them from its queue.
std::vector<int> device_order(const char* scheduler) {
  Synthetic s;
  RuntimeOptions o = options(write_models(std::string("order_") + scheduler, s, true), scheduler);
  o.device_tasks_in_flight = 1;
  // The rule alone: a prefetch would put the next queued task's vector in place too.
  o.prefetch = false;
  auto rt = test::make_emulated_runtime(o);
  constexpr int kVectors = 8;
  std::vector<std::vector<double>> xs(kVectors, std::vector<double>(kElems, 0.0));
  for (int i = 0; i < kVectors; ++i) xs[i][2] = i;  // each task's name, read by the device
  std::vector<Data> data;
  for (auto& x : xs) data.push_back(rt->register_vector(x.data(), x.size(), "x"));
  Codelet produce("produce");
  produce.cuda([](const TaskContext& t) { t.data<double>(0)[1] = 1; });
  for (int i = 1; i < kVectors; i += 2) rt->submit(produce, {{data[i], Access::ReadWrite}});
  rt->wait_all();  // odd vectors: valid at home and on the device

  std::mutex mutex;
  std::vector<int> order;
  Codelet consume("work");  // the name the injected models know
  consume.cuda([&](const TaskContext& t) {
    double* x = t.data<double>(1);
    std::lock_guard lock(mutex);
    order.push_back(static_cast<int>(x[2]));
  });
  double gate_value = 0;
  Data gate = rt->register_vector(&gate_value, 1, "gate");
  {
    HostAccess hold = rt->acquire(gate, Access::Write);
    for (auto& d : data) rt->submit(consume, {{gate, Access::Read}, {d, Access::ReadWrite}});
  }
  rt->wait_all();
  return order;
}

TEST(ModelReadyScheduler, DeviceTakesQueuedTasksWithDataInPlaceFirst) {
  std::vector<int> ready = device_order("model-ready");
  ASSERT_EQ(ready.size(), 8u);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(ready[k] % 2, 1) << "task " << ready[k] << " ran " << k
                               << "th, before a task whose vector was on the device";
  // The plain model scheduler keeps the queue's order, so the difference is the policy's.
  std::vector<int> plain = device_order("model");
  ASSERT_EQ(plain.size(), 8u);
  EXPECT_EQ(plain[0], 0);
}

// Run-ahead and the model's bookkeeping. A runtime with one CPU worker and one emulated device
// whose lane is held until `go`; a failing device task on `p` is taken before anything else is
// submitted (its input is being copied in when this returns).
// Members in this order: the promise goes first (a lane still held is let go), then the runtime,
// then the vector it may still write home.
struct FailingLane {
  std::vector<double> p = std::vector<double>(kElems, 0.0);
  Data pd;
  std::unique_ptr<Runtime> rt;
  std::promise<void> go;
};

std::unique_ptr<FailingLane> failing_lane(const Synthetic& s, const std::string& name) {
  RuntimeOptions o = options(write_models(name, s, true));
  o.run_ahead = 1;
  o.device_tasks_in_flight = 1;  // a ready task waits while one is in flight
  o.prefetch = false;
  auto lane = std::make_unique<FailingLane>();
  auto device = std::make_unique<test::EmulatedDevice>("emu:0", 1ull << 30);
  test::EmulatedDevice* emu = device.get();
  emu->hold(lane->go.get_future().share());
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  lane->rt = runtime::RuntimeAccess::make(o, std::move(drivers));
  lane->pd = lane->rt->register_vector(lane->p.data(), lane->p.size(), "p");
  Codelet boom("boom");
  boom.cuda([](const TaskContext&) { throw std::runtime_error("kaboom"); });
  lane->rt->submit(boom, {{lane->pd, Access::ReadWrite}});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (emu->h2d_copies_ < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GE(emu->h2d_copies_, 1);
  return lane;
}

Codelet big_codelet(bool on_cpu) {
  Codelet big("big");
  big.cuda([](const TaskContext& t) { t.data<double>(0)[0] += 1; });
  if (on_cpu) big.cpu([](const TaskContext& t) { t.data<double>(0)[0] += 1; });
  return big;
}

// A task queued ahead on the device behind the failing one is taken from the queue and
// cancelled, never run. The load its placement counted must go with it: when it stayed, the
// device looked busy for that task's 10 predicted seconds from then on, and every later task
// went to the CPU.
TEST(ModelScheduler, ACancelledRunAheadTaskLeavesNoLoadOnTheDevice) {
  Synthetic s;                         // "work": device 1 ms, CPU 10 ms
  s.big_device_s = 10;                 // "big" on one vector
  std::vector<double> r(kElems, 0.0);  // outlives the runtime
  auto lane = failing_lane(s, "cancelled_ahead");
  Runtime& rt = *lane->rt;
  Data rd = rt.register_vector(r.data(), r.size(), "r");
  Codelet big = big_codelet(false);
  // A ready task ahead of it in the device's queue keeps the one queued ahead there until the
  // failure is known: then it is taken and cancelled.
  rt.submit(big, {{rd, Access::ReadWrite}}, 5);
  rt.submit(big, {{lane->pd, Access::ReadWrite}}, 0);
  lane->go.set_value();
  EXPECT_THROW(rt.wait_all(), Error);
  EXPECT_EQ(r[0], 1.0);

  rt.reset_stats();
  Counts n = run_gated_on(rt, s);
  EXPECT_GT(n.device, 2 * n.cpu) << n.cpu << " on the CPU, " << n.device << " on the device";
}

// A task whose predecessors are all on the device's lane is placed at once; placed on the CPUs,
// not on the lane, that decision is withdrawn (it is placed anew once ready), and the task is
// cancelled when the failure is known, never queued. Its load must go too: when it stayed, the
// CPUs looked busy for its 10 predicted seconds from then on, and every later task went to the
// device.
TEST(ModelScheduler, ACancelledTaskPlacedAheadLeavesNoLoadOnTheCpus) {
  Synthetic s;
  s.cpu_ms = 1;  // "work": the CPU 10x faster
  s.device_ms = 10;
  s.big_cpu_s = 10;  // "big": the CPU 10x faster
  s.big_device_s = 100;
  auto lane = failing_lane(s, "cancelled_placed");
  Runtime& rt = *lane->rt;
  Codelet big = big_codelet(true);
  rt.submit(big, {{lane->pd, Access::ReadWrite}}, 0);
  lane->go.set_value();
  EXPECT_THROW(rt.wait_all(), Error);

  rt.reset_stats();
  Counts n = run_gated_on(rt, s);
  EXPECT_GT(n.cpu, 2 * n.device) << n.cpu << " on the CPU, " << n.device << " on the device";
}

TEST(ModelSchedulerDefault, AutoIsModelWithDevicesAndEagerWithout) {
  RuntimeOptions o;
  o.cpus = 1;
  o.pin = false;
  o.perf_models = "none";
  EXPECT_EQ(test::make_emulated_runtime(o)->stats().scheduler, "model");
  EXPECT_EQ(test::make_emulated_runtime(o, 0)->stats().scheduler, "eager");
  o.offload = {"gemm"};
  EXPECT_EQ(test::make_emulated_runtime(o)->stats().scheduler, "offload");
}

}  // namespace
}  // namespace conveyor
