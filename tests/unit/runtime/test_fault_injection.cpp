// Injected faults (issue: whatever fails, the user's data is never lost or corrupted): a device
// kernel that fails half-way through writing its buffer, a copy that lands half its bytes and
// fails, a CPU task that throws, a device that refuses memory; at chosen places and at places drawn
// at random (seeded; a failure prints the place). Each run ends with one error naming the task,
// without a hang, and every registered buffer holds a whole state the graph passed through, never
// a mix (docs/runtime.md, "When a task fails").
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBuffers = 6, kLength = 64, kRounds = 5;

// x[i] += r[i] on the host or on the emulated device (host memory there too), where r is a
// read-only buffer of ones shared by every task. The task numbered `fail_at` (counting every run of
// the codelet) writes the first half of its buffer, then fails; `failed` keeps its id.
struct Faulty {
  std::atomic<int> runs{0};
  std::atomic<TaskId> failed{0};
  int fail_at = -1;
  Codelet codelet{"add_one"};
  explicit Faulty(int fail) : fail_at(fail) {
    auto fn = [this](const TaskContext& t) {
      int* x = t.data<int>(0);
      const int* ones = t.data<int>(1);
      const bool fail = runs.fetch_add(1) == fail_at;
      for (std::size_t i = 0; i < kLength; ++i) {
        if (fail && i == kLength / 2) {
          failed = t.task_id();
          throw DeviceError("injected fault");
        }
        x[i] += ones[i];
      }
    };
    codelet.cpu(fn).cuda(fn);
  }
};

struct Outcome {
  std::string error;
  std::vector<std::vector<int>> buffers;
  std::vector<std::string> lost;  // per buffer: unregister's error when its contents were lost
  std::vector<std::vector<TaskId>> ids;  // per buffer: its tasks, round by round
  std::vector<int> ones = std::vector<int>(kLength, 1);
};

// Rounds of add_one over every buffer (each buffer's tasks form a chain), then wait_all.
Outcome run(Runtime& rt, Faulty& faulty) {
  Outcome o;
  o.buffers.assign(kBuffers, std::vector<int>(kLength, 0));
  o.lost.assign(kBuffers, "");
  o.ids.assign(kBuffers, {});
  std::vector<Data> data;
  for (auto& b : o.buffers) data.push_back(rt.register_vector(b.data(), b.size()));
  Data ones = rt.register_vector(o.ones.data(), o.ones.size());
  auto finished = std::async(std::launch::async, [&] {
    try {
      for (std::size_t r = 0; r < kRounds; ++r)
        for (std::size_t b = 0; b < data.size(); ++b)
          o.ids[b].push_back(
              rt.submit(faulty.codelet, {{data[b], Access::ReadWrite}, {ones, Access::Read}}));
      rt.wait_all();
    } catch (const Error& e) {
      o.error = e.what();
    }
    // Unregistering brings each buffer home; that fails when its latest contents are on a
    // device that can no longer copy them (docs/runtime.md, "When a task fails").
    for (std::size_t b = 0; b < data.size(); ++b) try {
        rt.unregister(data[b]);
      } catch (const Error& e) {
        o.lost[b] = e.what();
        if (o.error.empty()) o.error = e.what();
      }
    rt.unregister(ones);  // never copied home: the host's copy stays valid
  });
  if (finished.wait_for(60s) == std::future_status::timeout) {
    ADD_FAILURE() << "the run did not end after the fault: a hang";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  finished.get();
  return o;
}

// Every buffer is uniform (no half-written state) and holds 0..kRounds additions, unless unregister
// said that its latest contents were lost (then a copy home may have landed in part); the
// read-only buffer is untouched.
void expect_consistent(const Outcome& o) {
  EXPECT_EQ(o.ones, std::vector<int>(kLength, 1)) << "the read-only buffer changed";
  for (std::size_t b = 0; b < o.buffers.size(); ++b) {
    const auto& v = o.buffers[b];
    if (!o.lost[b].empty()) {
      EXPECT_NE(o.lost[b].find("a mix"), std::string::npos) << o.lost[b];
      continue;
    }
    for (std::size_t i = 1; i < v.size(); ++i)
      ASSERT_EQ(v[i], v[0]) << "buffer " << b << " is a mix at element " << i;
    EXPECT_GE(v[0], 0);
    EXPECT_LE(v[0], static_cast<int>(kRounds));
  }
}

RuntimeOptions device_only() {
  RuntimeOptions o;
  o.cpus = 0;
  o.pin = false;
  o.perf_models = "none";
  return o;
}

TEST(FaultInjection, AKernelFailingHalfWayLeavesNoHalfWrittenBuffer) {
  // Ten times over: whether tasks run ahead behind the failing one, and whether one of them is
  // launched before the failure cancels it (its input then copied in again from the host), depends
  // on timing; a write of such a task that came home showed in about one run in four.
  for (int attempt = 0; attempt < 10; ++attempt)
    for (int fail_at : {0, 7, 20}) {
      SCOPED_TRACE(fail_at);
      Faulty faulty(fail_at);
      auto rt = test::make_emulated_runtime(device_only());
      Outcome o = run(*rt, faulty);
      EXPECT_NE(o.error.find("task 'add_one'"), std::string::npos) << o.error;
      EXPECT_NE(o.error.find("injected fault"), std::string::npos) << o.error;
      expect_consistent(o);
      // The failed task's buffer is back at its last state that reached host memory whole: the
      // user's initial value here (the tasks before the failed one kept theirs on the device).
      // Never the failed task's half, nor anything after it. Which buffer and round failed is found
      // by the task's id: with run-ahead a device may run a buffer's chain before other buffers'
      // rounds.
      bool found = false;
      for (std::size_t b = 0; b < kBuffers; ++b)
        for (std::size_t r = 0; r < kRounds; ++r)
          if (o.ids[b][r] == faulty.failed.load()) {
            found = true;
            EXPECT_LE(o.buffers[b][0], static_cast<int>(r)) << "buffer " << b << ", round " << r;
          }
      EXPECT_TRUE(found) << "no task of the graph failed";
    }
}

TEST(FaultInjection, ACpuTaskThatThrowsStopsItsDependantsOnly) {
  Faulty faulty(9);
  RuntimeOptions options;
  options.cpus = 1;  // one worker: the tasks run in submission order, so the 10th is buffer 3's
  options.pin = false;
  Runtime rt(options);
  Outcome o = run(rt, faulty);
  EXPECT_NE(o.error.find("task 'add_one'"), std::string::npos) << o.error;
  // A CPU task works in the user's memory: the half it wrote before throwing stays written.
  const auto& failed = o.buffers[9 % kBuffers];
  EXPECT_EQ(failed[0], 2);
  EXPECT_EQ(failed[kLength - 1], 1);
  for (std::size_t b = 0; b < kBuffers; ++b)
    if (b != 9 % kBuffers) EXPECT_EQ(o.buffers[b], std::vector<int>(kLength, kRounds)) << b;
}

TEST(FaultInjection, ADeviceThatRefusesMemoryFailsTheTaskAndLosesNothing) {
  Faulty faulty(-1);
  auto device = std::make_unique<test::EmulatedDevice>("emu:0");
  device->fail_allocations_from_ = 0;
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  auto rt = runtime::RuntimeAccess::make(device_only(), std::move(drivers));
  Outcome o = run(*rt, faulty);
  EXPECT_NE(o.error.find("emulated allocation failure"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("add_one"), std::string::npos) << o.error;
  expect_consistent(o);
}

// The platforms the copy and allocation faults are tried on; the fault is on emu:0.
struct Platform {
  const char* name;
  int devices;
  int cpus;
  std::size_t room;  // device memory in buffers (evictions and write-backs), 0: unlimited
  DeviceCopy copy;
  bool inline_lanes;
};
const Platform kPlatforms[] = {
    {"one device", 1, 0, 0, DeviceCopy::HostStaged, false},
    {"one device with room for three buffers", 1, 0, 3, DeviceCopy::HostStaged, false},
    {"a device beside a CPU worker", 1, 1, 0, DeviceCopy::HostStaged, false},
    {"two devices, peer copies, room for three buffers", 2, 0, 3, DeviceCopy::PeerCopy, false},
    {"two devices and a CPU worker, inline lanes", 2, 1, 0, DeviceCopy::HostStaged, true},
};

struct FaultRig {
  std::unique_ptr<Runtime> rt;
  test::EmulatedDevice* faulty = nullptr;  // emu:0, owned by rt
};

FaultRig make_rig(const Platform& p) {
  RuntimeOptions o = device_only();
  o.cpus = p.cpus;
  o.device_copy = p.copy;
  o.device_memory_limit = p.room * kLength * sizeof(int);
  FaultRig rig;
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  for (int i = 0; i < p.devices; ++i) {
    drivers.push_back(std::make_unique<test::EmulatedDevice>("emu:" + std::to_string(i), 1ull << 30,
                                                             p.inline_lanes));
    if (i == 0) rig.faulty = static_cast<test::EmulatedDevice*>(drivers.back().get());
  }
  rig.rt = runtime::RuntimeAccess::make(std::move(o), std::move(drivers));
  return rig;
}

// `count` places in [0, n), drawn from a fixed seed (a failure prints the place).
std::vector<int> places(int n, int count, unsigned seed) {
  std::mt19937 draw(seed);
  std::vector<int> out;
  for (int i = 0; i < count && n > 0; ++i)
    out.push_back(static_cast<int>(draw() % static_cast<unsigned>(n)));
  return out;
}

TEST(FaultInjection, AKernelFailingAtRandomLeavesWholeBuffers) {
  const int tasks = static_cast<int>(kBuffers * kRounds);
  for (const Platform& p : kPlatforms)
    for (int fail_at : places(tasks, 4, 11)) {
      SCOPED_TRACE(std::string(p.name) + ", failing run " + std::to_string(fail_at));
      Faulty faulty(fail_at);
      FaultRig rig = make_rig(p);
      Outcome o = run(*rig.rt, faulty);
      EXPECT_NE(o.error.find("injected fault"), std::string::npos) << o.error;
      if (p.cpus == 0) expect_consistent(o);  // a CPU task that throws keeps its half (above)
    }
}

// A copy that lands half its bytes and fails: into the device (a task's input, a prefetch), home
// (a write-back before an eviction, the last copy home when the buffer is unregistered) or from
// a peer. Every copy of a fault-free run is a candidate; a few are drawn per platform.
TEST(FaultInjection, ACopyFailingHalfWayCorruptsNoBuffer) {
  int faults = 0, failed_runs = 0, lost = 0, mixed = 0;
  for (const Platform& p : kPlatforms) {
    int copies = 0;
    {
      Faulty faulty(-1);
      FaultRig rig = make_rig(p);
      Outcome o = run(*rig.rt, faulty);
      copies = rig.faulty->copies_;
      ASSERT_EQ(o.error, "") << p.name;
      ASSERT_EQ(o.buffers[0][0], static_cast<int>(kRounds)) << p.name;
      ASSERT_GT(copies, 0) << p.name;
    }
    for (int fail_at : places(copies, 12, 23)) {
      SCOPED_TRACE(std::string(p.name) + ", failing copy " + std::to_string(fail_at) + " of " +
                   std::to_string(copies));
      Faulty faulty(-1);
      FaultRig rig = make_rig(p);
      rig.faulty->fail_copy_at_ = fail_at;
      Outcome o = run(*rig.rt, faulty);
      SCOPED_TRACE("error: " + o.error);
      ++faults;
      // The run may not reach that copy (it asks for fewer when timing differs), or the copy may
      // be one it no longer needed (a prefetch never used): then every buffer is final. Otherwise
      // the error names the copy's failure.
      if (o.error.empty()) {
        for (const auto& b : o.buffers) EXPECT_EQ(b, std::vector<int>(kLength, kRounds));
      } else {
        ++failed_runs;
        EXPECT_NE(o.error.find("emulated copy failure"), std::string::npos) << o.error;
      }
      for (std::size_t b = 0; b < kBuffers; ++b) {
        if (o.lost[b].empty()) continue;
        ++lost;
        const auto& v = o.buffers[b];
        mixed += std::count(v.begin(), v.end(), v[0]) != static_cast<long>(v.size());
      }
      expect_consistent(o);
    }
  }
  std::printf(
      "%d copy faults injected: %d runs ended with an error; %d buffers of %d reported lost "
      "(%d of them a mix), none corrupted without an error\n",
      faults, failed_runs, lost, faults * static_cast<int>(kBuffers), mixed);
}

// A device's allocator refusing once (memory taken by another process for a moment): the runtime
// frees what it can and asks again, so the run ends as if nothing happened. Refusing from then on:
// the task that needs the memory fails, and nothing is lost.
TEST(FaultInjection, AnAllocationRefusedAtRandomLosesNothing) {
  for (const Platform& p : kPlatforms) {
    int allocations = 0;
    {
      Faulty faulty(-1);
      FaultRig rig = make_rig(p);
      run(*rig.rt, faulty);
      allocations = rig.faulty->allocations_;
    }
    for (int fail_at : places(allocations, 3, 37)) {
      SCOPED_TRACE(std::string(p.name) + ", refusing allocation " + std::to_string(fail_at));
      {
        Faulty faulty(-1);
        FaultRig rig = make_rig(p);
        rig.faulty->fail_allocation_at_ = fail_at;
        Outcome o = run(*rig.rt, faulty);
        EXPECT_EQ(o.error, "") << "a single refusal is retried";
        for (const auto& b : o.buffers) EXPECT_EQ(b, std::vector<int>(kLength, kRounds));
      }
      Faulty faulty(-1);
      FaultRig rig = make_rig(p);
      rig.faulty->fail_allocations_from_ = fail_at;
      Outcome o = run(*rig.rt, faulty);
      // Beside a CPU worker the run may finish without asking the device for that much memory.
      if (o.error.empty())
        for (const auto& b : o.buffers) EXPECT_EQ(b, std::vector<int>(kLength, kRounds));
      else
        EXPECT_NE(o.error.find("emulated allocation failure"), std::string::npos) << o.error;
      expect_consistent(o);
    }
  }
}

// A copy into the device that fails once, leaving its block half-filled (garbage in the rest),
// while the device stays well: the failed task's input replica must not be trusted afterwards. The
// next task reading the data on that device gets it copied in afresh, whole.
TEST(FaultInjection, AOneOffCopyFailureLeavesNoHalfFilledReplicaBehind) {
  Codelet copy("copy");
  auto fn = [](const TaskContext& t) {
    const int* in = t.data<int>(0);
    int* out = t.data<int>(1);
    std::copy(in, in + t.buffer(0).rows, out);
  };
  copy.cpu(fn).cuda(fn);
  for (bool inline_lanes : {false, true}) {
    SCOPED_TRACE(inline_lanes ? "inline lane" : "lane thread");
    std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
    drivers.push_back(std::make_unique<test::EmulatedDevice>("emu:0", 1ull << 30, inline_lanes));
    static_cast<test::EmulatedDevice&>(*drivers[0]).fail_h2d_once_at_ = 0;  // x's, for "first"
    auto rt = runtime::RuntimeAccess::make(device_only(), std::move(drivers));
    std::vector<int> x(kLength), first(kLength, -1), second(kLength, -1);
    std::iota(x.begin(), x.end(), 1);
    const std::vector<int> original = x;
    Data dx = rt->register_vector(x.data(), x.size(), "x");
    Data d1 = rt->register_vector(first.data(), first.size(), "first");
    Data d2 = rt->register_vector(second.data(), second.size(), "second");

    rt->submit(copy, {{dx, Access::Read}, {d1, Access::Write}}, 0, "first read");
    try {
      rt->wait_all();
      ADD_FAILURE() << "wait_all did not report the failed copy";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("first read"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("emulated one-off copy failure"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(first, std::vector<int>(kLength, -1)) << "the failed task's output came home";

    rt->submit(copy, {{dx, Access::Read}, {d2, Access::Write}}, 0, "second read");
    EXPECT_NO_THROW(rt->wait_all());
    EXPECT_EQ(second, original) << "the second read saw the half-filled replica";
    rt->unregister(dx);
    rt->unregister(d1);
    rt->unregister(d2);
    EXPECT_EQ(x, original);
  }
}

}  // namespace
}  // namespace conveyor
