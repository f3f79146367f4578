// Injected faults (issue: whatever fails, the user's data is never lost or corrupted): a device
// kernel that fails half-way through writing its buffer, a CPU task that throws, a device that
// refuses memory. Each run ends with one error naming the task, without a hang, and every
// registered buffer holds a whole state the graph passed through, never a mix (docs/runtime.md,
// "When a task fails").
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBuffers = 6, kLength = 64, kRounds = 5;

// x[i] += 1 on the host or on the emulated device (host memory there too). The task numbered
// `fail_at` (counting every run of the codelet) writes the first half of its buffer, then fails.
struct Faulty {
  std::atomic<int> runs{0};
  int fail_at = -1;
  Codelet codelet{"add_one"};
  explicit Faulty(int fail) : fail_at(fail) {
    auto fn = [this](const TaskContext& t) {
      int* x = t.data<int>(0);
      const bool fail = runs.fetch_add(1) == fail_at;
      for (std::size_t i = 0; i < kLength; ++i) {
        if (fail && i == kLength / 2) throw DeviceError("injected fault");
        x[i] += 1;
      }
    };
    codelet.cpu(fn).cuda(fn);
  }
};

struct Outcome {
  std::string error;
  std::vector<std::vector<int>> buffers;
};

// Rounds of add_one over every buffer (each buffer's tasks form a chain), then wait_all.
Outcome run(Runtime& rt, Faulty& faulty) {
  Outcome o;
  o.buffers.assign(kBuffers, std::vector<int>(kLength, 0));
  std::vector<Data> data;
  for (auto& b : o.buffers) data.push_back(rt.register_vector(b.data(), b.size()));
  auto finished = std::async(std::launch::async, [&] {
    for (std::size_t r = 0; r < kRounds; ++r)
      for (auto& d : data) rt.submit(faulty.codelet, {{d, Access::ReadWrite}});
    try {
      rt.wait_all();
    } catch (const Error& e) {
      o.error = e.what();
    }
    for (auto& d : data) rt.unregister(d);
  });
  if (finished.wait_for(60s) == std::future_status::timeout) {
    ADD_FAILURE() << "the run did not end after the fault: a hang";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  finished.get();
  return o;
}

// Every buffer is uniform (no half-written state) and holds 0..kRounds additions.
void expect_consistent(const Outcome& o) {
  for (std::size_t b = 0; b < o.buffers.size(); ++b) {
    const auto& v = o.buffers[b];
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
  for (int fail_at : {0, 7, 20}) {
    SCOPED_TRACE(fail_at);
    Faulty faulty(fail_at);
    auto rt = test::make_emulated_runtime(device_only());
    Outcome o = run(*rt, faulty);
    EXPECT_NE(o.error.find("task 'add_one'"), std::string::npos) << o.error;
    EXPECT_NE(o.error.find("injected fault"), std::string::npos) << o.error;
    expect_consistent(o);
    // The failed task's buffer is back at its last state that reached host memory whole: the
    // user's initial value here (the tasks before the failed one kept theirs on the device). Never
    // the failed task's half, nor anything after it.
    const std::size_t buffer = fail_at % kBuffers;
    EXPECT_LE(o.buffers[buffer][0], fail_at / static_cast<int>(kBuffers));
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
  device->fail_allocations_ = true;
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  drivers.push_back(std::move(device));
  auto rt = detail::RuntimeAccess::make(device_only(), std::move(drivers));
  Outcome o = run(*rt, faulty);
  EXPECT_NE(o.error.find("emulated allocation failure"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("add_one"), std::string::npos) << o.error;
  expect_consistent(o);
}

}  // namespace
}  // namespace conveyor
