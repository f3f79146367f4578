// Write-backs ahead (CoherenceEngine::evict): past the room asked for, the Modified replicas that
// the next evictions take are written home at once, so that their room has landed when it is
// needed; a replica that a task in flight uses (pinned: it may be writing it) is never one of them.
#include <gtest/gtest.h>

#include <vector>

#include "data/coherence.hpp"
#include "unit/data/coherence_test_helpers.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::data {
namespace {

constexpr std::size_t kAheadInts = 16;
constexpr std::size_t kAheadBytes = kAheadInts * sizeof(int);

// A task adding `add` to `d` on the device, launched (its block pinned until `unpin`).
int launch_add(CoherenceEngine& engine, DataState& d, int add) {
  int peer = 0;
  int r = engine.reserve_on_device(d, 1, Access::ReadWrite);
  EXPECT_EQ(r, CoherenceEngine::kLocal);
  auto* block = static_cast<int*>(engine.prepare_on_device(d, 1, Access::ReadWrite, &peer, r));
  for (std::size_t i = 0; i < kAheadInts; ++i)
    block[i] += add;  // the "kernel" (the lane runs inline)
  engine.finish_on_device(d, 1, Access::ReadWrite);
  return r;
}

RuntimeStats counts(TransferStats& stats) {
  RuntimeStats s;
  stats.fill(s);
  return s;
}

TEST(WriteBackAhead, StartsTheNextVictimsCopiesAndNeverOneAnEnqueuedTaskWrites) {
  std::vector<std::vector<int>> v(4, std::vector<int>(kAheadInts, 1));
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30, /*inline_lane=*/true);
  CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device}, 3 * kAheadBytes,
                         stats, nullptr);
  engine.set_write_back_ahead(2);
  std::vector<DataState> d(4);
  for (std::size_t i = 0; i < d.size(); ++i) test::init_vector(engine, d[i], v[i]);
  // Least recently used first: d[0] (done), d[1] (its task still in flight), d[2] (done); all
  // three Modified on the device, the host stale.
  engine.unpin(d[0], 1, launch_add(engine, d[0], 10));
  const int in_flight = launch_add(engine, d[1], 20);
  engine.unpin(d[2], 1, launch_add(engine, d[2], 30));

  // d[3] needs the room of one: d[0] is written home for it, and ahead of the next evictions
  // d[2] too; d[1], between them in the order, is pinned and stays as it is.
  int r = engine.reserve_on_device(d[3], 1, Access::Read);
  EXPECT_EQ(r, CoherenceEngine::kNoRoom);  // the room comes once d[0]'s copy has landed
  EXPECT_EQ(counts(stats).write_backs, 2u);
  EXPECT_EQ(v[0], std::vector<int>(kAheadInts, 11));
  EXPECT_EQ(v[2], std::vector<int>(kAheadInts, 31));
  EXPECT_EQ(v[1], std::vector<int>(kAheadInts, 1));  // never copied home under its task
  EXPECT_EQ(d[1].replicas[1].state, Msi::Modified);
  EXPECT_FALSE(d[1].replicas[1].writing_back);

  // Landed (inline lane): d[0]'s block is taken as it is, and no new write-back is needed.
  r = engine.reserve_on_device(d[3], 1, Access::Read);
  ASSERT_EQ(r, CoherenceEngine::kLocal);
  EXPECT_EQ(counts(stats).write_backs, 2u);
  EXPECT_EQ(device.allocations_, 3);
  int peer = 0;
  engine.prepare_on_device(d[3], 1, Access::Read, &peer, r);
  engine.finish_on_device(d[3], 1, Access::Read);
  engine.unpin(d[3], 1, r);
  engine.unpin(d[1], 1, in_flight);
  for (auto& x : d) engine.drop_replicas(x);
  EXPECT_EQ(v[1], std::vector<int>(kAheadInts, 21));
}

TEST(WriteBackAhead, OffWritesHomeOnlyWhatTheRoomNeeds) {
  std::vector<std::vector<int>> v(4, std::vector<int>(kAheadInts, 1));
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30, /*inline_lane=*/true);
  CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device}, 3 * kAheadBytes,
                         stats, nullptr);
  engine.set_write_back_ahead(0);
  std::vector<DataState> d(4);
  for (std::size_t i = 0; i < d.size(); ++i) test::init_vector(engine, d[i], v[i]);
  for (int i = 0; i < 3; ++i) engine.unpin(d[i], 1, launch_add(engine, d[i], 10));
  EXPECT_EQ(engine.reserve_on_device(d[3], 1, Access::Read), CoherenceEngine::kNoRoom);
  EXPECT_EQ(counts(stats).write_backs, 1u);
  EXPECT_EQ(v[2], std::vector<int>(kAheadInts, 1));
  for (auto& x : d) engine.drop_replicas(x);
}

}  // namespace
}  // namespace conveyor::data
