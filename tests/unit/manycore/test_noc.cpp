// The mesh on its own: zero-load latency is hops + flits (header included), XY routes, and
// wormhole packets stay whole under contention.
#include <gtest/gtest.h>

#include <vector>

#include "manycore/noc/mesh.hpp"

namespace conveyor::manycore {
namespace {

struct Delivery {
  int router;
  uint64_t cycle;
  uint32_t packet;
  uint16_t index;
};

/// Injects one packet of `flits` flits (one per cycle from cycle 0) and returns the cycle its tail
/// is ejected, counted from the header's injection.
uint64_t deliver(int width, int height, int src, int dst, int flits) {
  Mesh mesh;
  mesh.reset(width, height, 4, false);
  Packet p;
  p.src = static_cast<uint16_t>(src);
  p.dst = static_cast<uint16_t>(dst);
  uint32_t id = mesh.new_packet(p);
  int injected = 0;
  uint64_t tail_cycle = 0;
  bool done = false;
  for (uint64_t now = 0; now < 1000 && !done; ++now) {
    if (injected < flits && mesh.can_inject(src, kLocal)) {
      Flit f{id, 0, 0, static_cast<uint16_t>(injected), injected + 1 == flits};
      mesh.inject(src, kLocal, f, now);
      ++injected;
    }
    mesh.step(now, [&](int router, int port, const Flit& f) {
      EXPECT_EQ(router, dst);
      EXPECT_EQ(port, kLocal);
      if (f.tail) {
        tail_cycle = now;
        done = true;
      }
    });
  }
  EXPECT_TRUE(done);
  return tail_cycle;
}

int hops(int width, int a, int b) {
  return std::abs(a % width - b % width) + std::abs(a / width - b / width);
}

TEST(SimNoc, ZeroLoadLatencyIsHopsPlusFlits) {
  const int w = 8, h = 8;
  for (int dst : {0, 1, 7, 9, 63, 36})
    for (int flits : {1, 2, 5, 17})
      EXPECT_EQ(deliver(w, h, 0, dst, flits), static_cast<uint64_t>(hops(w, 0, dst) + flits))
          << "dst " << dst << " flits " << flits;
  EXPECT_EQ(deliver(4, 4, 15, 0, 3), 6u + 3u);
}

TEST(SimNoc, PacketsStayWholeUnderContention) {
  // Every node of a 4x4 mesh sends a 6-flit packet to node 5 at once: flits of one packet must
  // arrive consecutively (no virtual channels, wormhole) and all must arrive.
  Mesh mesh;
  mesh.reset(4, 4, 4, false);
  std::vector<uint32_t> ids(16);
  std::vector<int> sent(16, 0);
  for (int s = 0; s < 16; ++s) {
    Packet p;
    p.src = static_cast<uint16_t>(s);
    p.dst = 5;
    ids[s] = mesh.new_packet(p);
  }
  std::vector<std::pair<uint32_t, uint16_t>> arrivals;
  for (uint64_t now = 0; now < 2000; ++now) {
    for (int s = 0; s < 16; ++s)
      if (sent[s] < 6 && mesh.can_inject(s, kLocal)) {
        mesh.inject(s, kLocal, Flit{ids[s], 0, 0, static_cast<uint16_t>(sent[s]), sent[s] == 5},
                    now);
        ++sent[s];
      }
    mesh.step(now, [&](int router, int, const Flit& f) {
      EXPECT_EQ(router, 5);
      arrivals.emplace_back(f.packet, f.index);
    });
  }
  ASSERT_EQ(arrivals.size(), 16u * 6u);
  for (size_t i = 0; i < arrivals.size(); ++i)
    EXPECT_EQ(arrivals[i].second, i % 6) << "interleaved packets at arrival " << i;
  EXPECT_EQ(mesh.flits_in_network(), 0u);
}

}  // namespace
}  // namespace conveyor::manycore
