// Reuse of evicted blocks (DeviceMemory): an eviction gives its replica's block back to the
// allocation cache instead of freeing it, and the allocation it made room for takes it as it is
// when the sizes match, so that out of core the device neither frees (cudaFree waits for the
// whole device) nor allocates per eviction. The cached blocks count against the limit, blocks of
// other sizes are freed only as far as a request needs, and everything is freed at the end.
#include <gtest/gtest.h>

#include <vector>

#include "data/coherence.hpp"
#include "unit/data/coherence_test_helpers.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::data {
namespace {

constexpr std::size_t kN = 16;
constexpr std::size_t kBytes = kN * sizeof(int);

TEST(BlockReuse, EvictionsReuseTheirBlocksAndEverythingIsFreedAtTheEnd) {
  // The host vectors first: they outlive the device, whose lane may still copy from them.
  std::vector<std::vector<int>> v(5, std::vector<int>(kN, 3));
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0");
  RuntimeStats s;
  {
    CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device}, 2 * kBytes,
                           stats, nullptr);
    std::vector<DataState> d(5);
    for (std::size_t i = 0; i < d.size(); ++i) test::init_vector(engine, d[i], v[i]);
    // Five vectors through room for two, three rounds: every use after the first two evicts.
    for (int round = 0; round < 3; ++round)
      for (auto& x : d) test::use_on_device(engine, x, Access::Read);
    EXPECT_EQ(device.allocations_, 2);  // the room's two blocks, nothing more
    EXPECT_EQ(device.frees_, 0);        // no eviction freed its block
    EXPECT_LE(engine.memory(1).used(), 2 * kBytes);
    EXPECT_LE(engine.memory(1).peak(), 2 * kBytes);
    for (auto& x : d) engine.drop_replicas(x);
    stats.fill(s);
    engine.fill(s);
  }
  EXPECT_EQ(s.evictions, 13u);  // 15 uses, 2 of them fit without evicting
  EXPECT_EQ(s.spaces[0].allocations, 2u);
  EXPECT_EQ(s.spaces[0].cache_hits, 13u);
  EXPECT_EQ(device.frees_, device.allocations_);  // the engine's end freed every block
}

TEST(BlockReuse, AWrittenBackBlockIsReusedOnceItsCopyHasLanded) {
  std::vector<std::vector<int>> v(3, std::vector<int>(kN, 5));
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0", 1ull << 30, /*inline_lane=*/true);
  {
    CoherenceEngine engine(Coherence::Coherent, DeviceCopy::HostStaged, {&device}, 2 * kBytes,
                           stats, nullptr);
    std::vector<DataState> d(3);
    for (std::size_t i = 0; i < d.size(); ++i) test::init_vector(engine, d[i], v[i]);
    test::use_on_device(engine, d[0], Access::ReadWrite);
    test::use_on_device(engine, d[1], Access::ReadWrite);
    // Both Modified: the room for d[2] comes from a write-back (landed at once on this lane),
    // then from the Shared replica it leaves, given back for reuse.
    int peer = 0;
    int r = engine.reserve_on_device(d[2], 1, Access::Read);
    if (r == CoherenceEngine::kNoRoom) r = engine.reserve_on_device(d[2], 1, Access::Read);
    ASSERT_EQ(r, CoherenceEngine::kLocal);
    engine.prepare_on_device(d[2], 1, Access::Read, &peer, r);
    engine.finish_on_device(d[2], 1, Access::Read);
    engine.unpin(d[2], 1, r);
    EXPECT_EQ(device.allocations_, 2);
    EXPECT_EQ(device.frees_, 0);
    for (auto& x : d) engine.drop_replicas(x);
  }
  EXPECT_EQ(device.frees_, device.allocations_);
}

TEST(BlockReuse, CachedBlocksOfOtherSizesAreFreedOnlyAsFarAsNeeded) {
  TransferStats stats({"host", "emu:0"});
  test::EmulatedDevice device("emu:0");
  {
    DeviceMemory memory(device, 1, 400, stats);
    void* a = memory.allocate(100, "a");
    void* b = memory.allocate(100, "b");
    void* c = memory.allocate(200, "c");
    ASSERT_TRUE(a && b && c);
    memory.release(a, 100);
    memory.release(b, 100);
    memory.release(c, 200);
    EXPECT_EQ(memory.used(), 400u);  // cached blocks count against the limit
    // 300 bytes: no cached block of that size; the largest cached ones go first, as few as fit.
    void* d = memory.allocate(300, "d");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(device.frees_, 2);  // the 200 and one 100
    EXPECT_EQ(memory.used(), 400u);
    // The 100 left is reused as it is: four allocations in all.
    void* e = memory.allocate(100, "e");
    EXPECT_TRUE(e == a || e == b);
    EXPECT_EQ(device.allocations_, 4);
    // Nothing fits now and nothing can be evicted (no hook): no room, and nothing freed for it.
    EXPECT_EQ(memory.allocate(100, "f"), nullptr);
    EXPECT_EQ(device.frees_, 2);
    memory.release(d, 300);
    memory.release(e, 100);
  }
  EXPECT_EQ(device.frees_, device.allocations_);  // the cache is freed at the end
}

}  // namespace
}  // namespace conveyor::data
