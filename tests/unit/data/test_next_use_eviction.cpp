// Eviction by next use (CoherenceEngine::rank_next_uses): with the reads of the queued tasks
// ranked, the replica needed furthest ahead goes first, which moves fewer bytes than recency on
// the access pattern recency handles worst (a cycle one block larger than the room); and a
// replica that a task in flight uses is never taken, however far its next use.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/coherence.hpp"
#include "unit/data/coherence_test_helpers.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::data {
namespace {

constexpr std::size_t kInts = 16;

// Bytes copied in for the reads a b c a b c ... through room for two vectors; `ranked`: the
// driver ranks the reads still to come before each one, as the device worker does with its queue.
std::uint64_t cyclic_reads(bool ranked) {
  // The host vectors first: they outlive the device, whose thread may still be copying from them.
  std::vector<std::vector<int>> v(3, std::vector<int>(kInts, 7));
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30);
  CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device},
                         2 * kInts * sizeof(int), stats, nullptr);
  std::vector<DataState> d(3);
  for (int i = 0; i < 3; ++i) test::init_vector(engine, d[i], v[i]);
  std::vector<DataState*> order;
  for (int round = 0; round < 4; ++round)
    for (auto& x : d) order.push_back(&x);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (ranked)
      engine.rank_next_uses(1, std::span<DataState* const>(order.data() + i, order.size() - i));
    test::use_on_device(engine, *order[i], Access::Read);
  }
  for (auto& x : d) engine.drop_replicas(x);
  RuntimeStats s;
  stats.fill(s);
  EXPECT_EQ(s.write_backs, 0u);  // clean data only: nothing goes home
  return s.h2d_bytes;
}

TEST(NextUseEviction, ACycleLargerThanTheRoomMovesFewerBytesThanByRecency) {
  const std::uint64_t tile = kInts * sizeof(int);
  // Recency evicts exactly the vector read next: every one of the 12 reads copies.
  EXPECT_EQ(cyclic_reads(false), 12 * tile);
  // The vector needed furthest ahead goes instead: 2 first copies, then one in two reads hits.
  EXPECT_EQ(cyclic_reads(true), 7 * tile);
}

TEST(NextUseEviction, AReplicaInUseIsNeverTakenHoweverFarItsNextUse) {
  std::vector<int> a(kInts, 1), b(kInts, 2),
      c(kInts, 3);  // outlive the device (its copies read them)
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30);
  CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device},
                         2 * kInts * sizeof(int), stats, nullptr);
  DataState da, db, dc;
  test::init_vector(engine, da, a);
  test::init_vector(engine, db, b);
  test::init_vector(engine, dc, c);
  // a: in use by a task in flight (pinned), and read by no queued task: furthest of all.
  int peer = 0;
  int ra = engine.reserve_on_device(da, 1, Access::Read);
  ASSERT_EQ(ra, CoherenceEngine::kLocal);
  engine.prepare_on_device(da, 1, Access::Read, &peer, ra);
  test::use_on_device(engine, db, Access::Read);
  std::vector<DataState*> queued = {&dc, &db};  // b is read right after c
  engine.rank_next_uses(1, queued);
  test::use_on_device(engine, dc,
                      Access::Read);  // needs room: b goes, although a is needed later than b
  EXPECT_NE(da.replicas[1].block, nullptr);
  EXPECT_EQ(db.replicas[1].block, nullptr);
  engine.finish_on_device(da, 1, Access::Read);
  engine.unpin(da, 1, ra);
  // Unpinned now and still read by no queued task: the next room comes from a, not from b's
  // successor c, which the queue reads next.
  queued = {&db, &dc};
  engine.rank_next_uses(1, queued);
  test::use_on_device(engine, db, Access::Read);
  EXPECT_EQ(da.replicas[1].block, nullptr);
  EXPECT_NE(dc.replicas[1].block, nullptr);
  for (DataState* d : {&da, &db, &dc}) engine.drop_replicas(*d);
}

}  // namespace
}  // namespace conveyor::data
