// The default tile size of conveyor cholesky (apps/common/block_size.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "common/block_size.hpp"

namespace conveyor::apps::common {
namespace {

TEST(CholeskyDefaultBlock, TheDocumentedCases) {
  EXPECT_EQ(default_block(8192, 2), 1024);  // the 2-core VM: largest tiles, 8 per side
  EXPECT_EQ(default_block(8192, 16), 512);  // 16 cores: 16 tiles per side, as measured best there
  EXPECT_EQ(default_block(2048, 2), 320);
  EXPECT_EQ(default_block(32768, 16), 1024);
}

TEST(CholeskyDefaultBlock, DevicesAloneTakeLargerTiles) {
  EXPECT_EQ(default_block(4096, 1, kMaxDeviceBlock), 1024);  // 4 tiles per side for the one GPU
  EXPECT_EQ(default_block(8192, 1, kMaxDeviceBlock), 2048);
  EXPECT_EQ(default_block(32768, 1, kMaxDeviceBlock), 2048);
  EXPECT_EQ(default_block(32768, 2, kMaxDeviceBlock), 2048);  // two GPUs: 16 tiles per side
}

TEST(CholeskyDefaultBlock, EnoughTilesForTheWorkersAndNeverAboveTheCap) {
  for (int n : {256, 1000, 4096, 8192, 20000, 65536})
    for (int p : {1, 2, 4, 8, 16, 32, 64, 128}) {
      int b = default_block(n, p);
      EXPECT_EQ(b % kBlockGranule, 0) << n << " " << p;
      EXPECT_LE(b, kMaxDefaultBlock) << n << " " << p;
      int tiles = (n + b - 1) / b;
      // Only the smallest tile may leave fewer tiles per side than the workers want.
      if (b > kBlockGranule)
        EXPECT_GE(tiles, static_cast<int>(std::ceil(4 * std::sqrt(p)))) << n << " " << p;
    }
}

TEST(CholeskyDefaultBlock, SmallMatricesAndNoWorkers) {
  EXPECT_EQ(default_block(10, 2), kBlockGranule);       // one tile, larger than the matrix
  EXPECT_EQ(default_block(4096, 1024), kBlockGranule);  // 128 tiles wanted, the granule caps it
  EXPECT_EQ(default_block(64, 1), kBlockGranule);
  EXPECT_EQ(default_block(8192, 0), default_block(8192, 1));
}

}  // namespace
}  // namespace conveyor::apps::common
