// Eviction's write-backs and the locks: a driver may complete work at once on the thread that
// enqueues it (PoCL calls an event's callback at once when the command has finished), so the
// completion of a write-back, which wakes the runtime (and takes its lock), must never run while
// the engine holds a data lock. Otherwise a driver thread holding data A's lock waits for the
// runtime's lock while a scheduler holding the runtime's lock waits for A's: both hang.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "data/coherence.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::data {
namespace {

void setup(CoherenceEngine& engine, DataState& d, std::vector<int>& v) {
  d.elem_size = sizeof(int);
  d.rows = v.size();
  d.ld = v.size();
  d.host = reinterpret_cast<char*>(v.data());
  engine.init(d);
}

// Device memory for one vector: b is Modified there when a needs the room, so b is written home
// by eviction; the device completes the copy at once, inside reserve_on_device. The wake-up that
// the completion sends must come after reserve_on_device has released a's lock: another thread
// (here: the wake-up itself, as a scheduler would) must be able to take it meanwhile. Bounded:
// the probe only tries the lock.
TEST(WriteBacks, CompletionsAtOnceRunWithoutADataLockHeld) {
  constexpr std::size_t n = 16;
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30, /*inline_lane=*/true);
  CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device}, n * sizeof(int),
                         stats, nullptr);
  std::vector<int> a(n, 1), b(n, 2);
  DataState da, db;
  setup(engine, da, a);
  setup(engine, db, b);

  int wakes = 0, under_lock = 0;
  engine.set_wake([&](int space) {
    EXPECT_EQ(space, 1);
    ++wakes;
    bool free = false;
    std::thread probe([&] {
      free = da.mutex.try_lock();
      if (free) da.mutex.unlock();
    });
    probe.join();
    if (!free) ++under_lock;
  });

  int peer = 0;
  int r = engine.reserve_on_device(db, 1, Access::ReadWrite);
  ASSERT_EQ(r, CoherenceEngine::kLocal);
  auto* block = static_cast<int*>(engine.prepare_on_device(db, 1, Access::ReadWrite, &peer, r));
  for (std::size_t i = 0; i < n; ++i) block[i] += 40;  // the "kernel"
  engine.finish_on_device(db, 1, Access::ReadWrite);
  engine.unpin(db, 1, r);

  // No room for a now: b's write-back starts and lands at once; the room comes with the wake-up.
  EXPECT_EQ(engine.reserve_on_device(da, 1, Access::Read), CoherenceEngine::kNoRoom);
  EXPECT_EQ(wakes, 1);
  EXPECT_EQ(under_lock, 0) << "a write-back's completion ran under the data's lock";
  EXPECT_EQ(b, std::vector<int>(n, 42));  // home before its block goes
  // Asked again after the wake-up: b's block (clean now) is freed for a.
  r = engine.reserve_on_device(da, 1, Access::Read);
  EXPECT_EQ(r, CoherenceEngine::kLocal);
  engine.prepare_on_device(da, 1, Access::Read, &peer, r);
  engine.finish_on_device(da, 1, Access::Read);
  engine.unpin(da, 1, r);
  RuntimeStats s;
  stats.fill(s);
  EXPECT_EQ(s.write_backs, 1u);
  EXPECT_EQ(s.evictions, 1u);
  engine.drop_replicas(da);
  engine.drop_replicas(db);
  EXPECT_EQ(a, std::vector<int>(n, 1));
  EXPECT_EQ(b, std::vector<int>(n, 42));
}

}  // namespace
}  // namespace conveyor::data
