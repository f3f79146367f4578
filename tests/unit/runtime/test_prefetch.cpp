// Prefetch (issue 10 item 4) and eviction that spares the replicas queued tasks read (issue 11
// item 1): a task queued behind a busy device has its inputs copied in before its launch, the
// replica is then used (counted), copy counts do not grow, results do not change, and under a small
// device memory the runtime still finishes without errors. No timings: copy counts only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "conveyor/runtime.hpp"
#include "unit/runtime/device_codelets.hpp"
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/runtime_devices.hpp"

namespace conveyor {
namespace {

// A kernel that holds the emulated device's lane until the test opens the gate, so that the tasks
// submitted meanwhile are queued behind it in a known state.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  void release() {
    {
      std::lock_guard lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
  void pass() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return open; });
  }
};
Gate* g_gate = nullptr;

// Opens the gate when the test leaves, whatever happened, so that no lane stays blocked.
struct ScopedGate {
  Gate gate;
  ScopedGate() { g_gate = &gate; }
  ~ScopedGate() {
    gate.release();
    g_gate = nullptr;
  }
};

Codelet gate_codelet() {  // writes its one buffer (nothing to copy in) once the gate opens
  Codelet c("gate");
  auto wait = [](const TaskContext&) { g_gate->pass(); };
  c.cpu(wait).cuda(wait);
  return c;
}

Codelet peek_codelet() {  // reads its buffers, changes nothing
  Codelet c("peek");
  auto nothing = [](const TaskContext&) {};
  c.cpu(nothing).cuda(nothing);
  return c;
}

// Waits (bounded by progress polls, not asserted on time) until `done` holds.
template <typename Pred>
bool eventually(Pred done) {
  for (int i = 0; i < 20000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

RuntimeOptions prefetch_options(int in_flight) {
  RuntimeOptions o;
  o.cpus = 0;
  o.pin = false;
  o.scheduler = "offload";
  o.offload = {"gate", "peek", "accumulate", "add_one"};
  o.device_tasks_in_flight = in_flight;
  return o;
}

// The device runs one task at a time and is held by the gate: the next queued task's two inputs
// are copied in meanwhile, and its launch copies nothing more.
TEST(Prefetch, QueuedTaskInputsMoveWhileTheDeviceIsBusy) {
  constexpr std::size_t n = 64, tasks = 3;
  ScopedGate gate;
  auto rt = test::make_emulated_runtime(prefetch_options(1));
  std::vector<int> g(n, 0);
  std::vector<std::vector<int>> a(tasks, std::vector<int>(n)), b(tasks, std::vector<int>(n, 1));
  Data dg = rt->register_vector(g.data(), n, "g");
  std::vector<Data> da, db;
  for (std::size_t i = 0; i < tasks; ++i) {
    std::iota(a[i].begin(), a[i].end(), static_cast<int>(i * 100));
    da.push_back(rt->register_vector(a[i].data(), n, "a" + std::to_string(i)));
    db.push_back(rt->register_vector(b[i].data(), n, "b" + std::to_string(i)));
  }
  Codelet hold = gate_codelet(), acc = test::accumulate_codelet();
  rt->submit(hold, {{dg, Access::Write}});
  for (std::size_t i = 0; i < tasks; ++i)
    rt->submit(acc, {{da[i], Access::Read}, {db[i], Access::ReadWrite}});
  // One task in flight: the window ahead is one task, a0 and b0.
  ASSERT_TRUE(eventually([&] { return rt->stats().prefetches >= 2; }));
  EXPECT_EQ(rt->stats().prefetches, 2u);
  gate.gate.release();
  ASSERT_NO_THROW(rt->wait_all());
  for (std::size_t i = 0; i < tasks; ++i)
    for (std::size_t e = 0; e < n; ++e) ASSERT_EQ(b[i][e], 1 + a[i][e]);
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.h2d_copies, 2 * tasks);  // each input once, prefetched or not
  EXPECT_GE(s.prefetches, 2u);
  EXPECT_EQ(s.prefetches_used, s.prefetches);
  EXPECT_EQ(s.prefetches_dropped, 0u);
  ASSERT_EQ(s.spaces.size(), 1u);
  EXPECT_EQ(s.spaces[0].prefetches, s.prefetches);
  EXPECT_EQ(s.spaces[0].prefetch_bytes, s.prefetches * n * sizeof(int));
}

// Room for three vectors, holding x, y (clean, x least recently used) and g. z needs room while a
// queued task reads x: the eviction takes y, not x (plain LRU would take x and copy it in again).
TEST(Prefetch, EvictionSparesWhatAQueuedTaskReads) {
  constexpr std::size_t n = 64;
  ScopedGate gate;
  RuntimeOptions o = prefetch_options(1);
  o.prefetch = false;  // the eviction choice alone
  o.device_memory_limit = 3 * n * sizeof(int);
  auto rt = test::make_emulated_runtime(o);
  std::vector<int> x(n, 1), y(n, 2), z(n, 3), g(n, 0);
  Data dx = rt->register_vector(x.data(), n, "x"), dy = rt->register_vector(y.data(), n, "y");
  Data dz = rt->register_vector(z.data(), n, "z"), dg = rt->register_vector(g.data(), n, "g");
  Codelet peek = peek_codelet(), hold = gate_codelet();
  rt->submit(peek, {{dx, Access::Read}});
  rt->submit(peek, {{dy, Access::Read}});
  rt->submit(hold, {{dg, Access::Write}});
  rt->submit(peek, {{dz, Access::Read}});  // needs room: evicts one of x, y
  rt->submit(peek, {{dx, Access::Read}});  // queued behind it, reads x
  gate.gate.release();
  ASSERT_NO_THROW(rt->wait_all());
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.h2d_copies, 3u);  // x, y, z: x not again
  // g goes home once: written home ahead of its eviction (it comes next in the order, once its
  // task has ended before z's eviction) or at wait_all.
  EXPECT_LE(s.write_backs, 1u);
  EXPECT_EQ(s.d2h_copies, 1u);
}

// The same graph with prefetch on and off, per device: identical results; without a memory limit
// no more copies than without prefetch beyond the prefetches dropped; with room for 4 of the 12
// vectors it still finishes, every task once, and every prefetch is used or dropped.
class PrefetchPerDevice : public test::RuntimePerDevice {
 protected:
  struct Run {
    std::vector<std::vector<int>> v;
    RuntimeStats stats;
  };
  static constexpr std::size_t kN = 256, kVectors = 12, kRounds = 3;
  Run run(bool prefetch, std::uint64_t limit) const {
    RuntimeOptions o = prefetch_options(2);
    o.prefetch = prefetch;
    o.device_memory_limit = limit;
    auto rt = make_runtime(o);
    Run r;
    r.v.assign(kVectors, std::vector<int>(kN));
    std::vector<Data> d;
    for (std::size_t i = 0; i < kVectors; ++i) {
      std::iota(r.v[i].begin(), r.v[i].end(), static_cast<int>(i * 1000));
      d.push_back(rt->register_vector(r.v[i].data(), kN, "v" + std::to_string(i)));
    }
    Codelet add_one = test::add_one_codelet(), acc = test::accumulate_codelet();
    for (std::size_t round = 0; round < kRounds; ++round)
      for (std::size_t i = 0; i < kVectors; ++i) {
        std::size_t j = (i * 5 + round) % kVectors;
        if (j == i) j = (j + 1) % kVectors;
        rt->submit(add_one, {{d[i], Access::ReadWrite}});
        rt->submit(acc, {{d[i], Access::Read}, {d[j], Access::ReadWrite}});
      }
    EXPECT_NO_THROW(rt->wait_all());
    r.stats = rt->stats();
    return r;
  }
};

TEST_P(PrefetchPerDevice, ResultsAndCopyCountsDoNotChange) {
  Run off = run(false, 0), on = run(true, 0);
  EXPECT_EQ(on.v, off.v);
  EXPECT_EQ(off.stats.prefetches, 0u);
  EXPECT_LE(on.stats.total_copies(), off.stats.total_copies() + on.stats.prefetches_dropped);
  EXPECT_EQ(on.stats.prefetches_used + on.stats.prefetches_dropped, on.stats.prefetches);
}

TEST_P(PrefetchPerDevice, SmallDeviceMemoryFinishesWithoutErrors) {
  const std::uint64_t limit = 4 * kN * sizeof(int);
  Run reference = run(false, 0), on = run(true, limit);
  EXPECT_EQ(on.v, reference.v);
  const RuntimeStats& s = on.stats;
  EXPECT_EQ(s.tasks, 2 * kVectors * kRounds);
  EXPECT_LE(s.peak_device_bytes, limit);
  EXPECT_GT(s.evictions, 0u);
  // No livelock: evictions bounded by the buffers the tasks use, plus one per prefetch.
  EXPECT_LE(s.evictions, 2 * s.tasks + s.prefetches);
  EXPECT_EQ(s.prefetches_used + s.prefetches_dropped, s.prefetches);
}

CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(PrefetchPerDevice);

}  // namespace
}  // namespace conveyor
