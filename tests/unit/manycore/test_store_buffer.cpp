// Store-to-load forwarding: a load sees the buffered stores over memory, youngest last, byte by
// byte, and ignores DMA-request entries.
#include <gtest/gtest.h>

#include "manycore/memory/store_buffer.hpp"

namespace conveyor::manycore {
namespace {

TEST(SimStoreBuffer, ForwardsBytesOldestFirst) {
  SbQueue q;
  q.reset(4);
  q.push(SbEntry{0x100, 0x11223344, 0, 1, 4, false});
  q.push(SbEntry{0x101, 0xaa, 0, 2, 1, false});
  q.push(SbEntry{0x30, 0x104, 0, 3, 4, true});  // a request store whose value looks like an address
  uint8_t bytes[4] = {0, 0, 0, 0};
  q.forward(0x100, 4, bytes);
  EXPECT_EQ(bytes[0], 0x44);
  EXPECT_EQ(bytes[1], 0xaa);
  EXPECT_EQ(bytes[2], 0x22);
  EXPECT_EQ(bytes[3], 0x11);
  uint8_t half[2] = {7, 7};
  q.forward(0x103, 2, half);  // half overlaps the word's last byte only
  EXPECT_EQ(half[0], 0x11);
  EXPECT_EQ(half[1], 7);
  EXPECT_TRUE(q.full() == false);
  q.push(SbEntry{0, 0, 0, 4, 4, false});
  EXPECT_TRUE(q.full());
  q.pop();
  EXPECT_EQ(q.front().seq, 2u);
}

TEST(SimStoreBuffer, OverlapIsHalfOpen) {
  EXPECT_TRUE(overlaps(0x100, 4, 0x100, 0x104));
  EXPECT_TRUE(overlaps(0x103, 1, 0x100, 0x104));
  EXPECT_FALSE(overlaps(0x104, 4, 0x100, 0x104));
  EXPECT_FALSE(overlaps(0xfc, 4, 0x100, 0x104));
  EXPECT_FALSE(overlaps(0x100, 4, 0x100, 0x100));  // empty range: nothing left to send
}

}  // namespace
}  // namespace conveyor::manycore
