// The default tile size of conveyor cholesky (apps/common/block_size.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "cholesky/cholesky_run.hpp"
#include "common/block_size.hpp"
#include "scratch_dir.hpp"

namespace conveyor::apps::common {
namespace {

using conveyor::test::ScratchDir;

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

// A node like the measured H200 one (platforms/h200-node.json, rounded): a GPU whose kernels
// gain with the tile up to 2048, beside 16 cores some 90x slower together.
constexpr const char* kGpuNode = R"({
  "name": "gpu-node",
  "host": {"cores": 16, "gflops": {"gemm": 40, "potrf": 27, "syrk": 50, "trsm": 40}},
  "devices": [{"id": "gpu", "memory_gb": 141, "launch_us": 3,
               "gflops": {"gemm": [[2147483648, 48000], [17179869184, 57000]],
                          "potrf": [[357913941, 770], [2863311531, 3200]],
                          "syrk": [[1073741824, 20700], [8589934592, 51700]],
                          "trsm": [[1073741824, 3200], [8589934592, 9700]]}}],
  "links": [{"between": ["host", "gpu:0"], "gbs": 34, "latency_us": 7.5}]
})";

cholesky::RunConfig on_platform(const ScratchDir& dir, int n) {
  std::string file = dir.path("gpu-node.json");
  std::ofstream(file) << kGpuNode;
  cholesky::RunConfig c;
  c.n = n;
  c.runtime.platform = file;
  return c;
}

TEST(CholeskyModelBlock, AGpuBesideTheCoresGetsTheTileItGetsAlone) {
  ScratchDir dir;
  for (int n : {8192, 16384, 32768}) {
    cholesky::RunConfig all = on_platform(dir, n);  // the 16 cores and the GPU
    cholesky::RunConfig gpu = all;
    gpu.runtime.cpus = 0;
    EXPECT_EQ(cholesky::block_for(all), 2048) << n;
    EXPECT_EQ(cholesky::block_for(gpu), 2048) << n;
    // Counting 17 equal workers gave 1024 (n = 16384, 32768) and 448 (n = 8192).
    EXPECT_LT(default_block(n, 17), 2048) << n;
  }
}

TEST(CholeskyModelBlock, TheModelsChooseAmongTheDeviceTiles) {
  // n = 4096: 4 tiles per side allow 1024, but the panel's potrf and trsm run at the GPU's
  // slowest rates at any tile up to 1024, and 512 tiles give them fewer of the flops.
  ScratchDir dir;
  cholesky::RunConfig c = on_platform(dir, 4096);
  EXPECT_EQ(cholesky::block_for(c), 512);
  c.block = 640;  // given: kept
  EXPECT_EQ(cholesky::block_for(c), 640);
}

TEST(CholeskyModelBlock, PoliciesThatIgnoreTheModelsKeepTheCountRule) {
  ScratchDir dir;
  for (const char* scheduler : {"eager", "round-robin"}) {
    cholesky::RunConfig c = on_platform(dir, 32768);
    c.runtime.scheduler = scheduler;
    // The platform's 16 cores and its GPU: 17 workers (not this machine's cores).
    EXPECT_EQ(cholesky::block_for(c), default_block(32768, 17)) << scheduler;
  }
}

TEST(CholeskyModelBlock, CpuOnlyRunsAreUnchanged) {
  cholesky::RunConfig c;
  c.n = 8192;
  c.runtime.cpus = 2;
  EXPECT_EQ(cholesky::block_for(c), default_block(8192, 2));
  c.runtime.cpus = 16;
  EXPECT_EQ(cholesky::block_for(c), default_block(8192, 16));
}

}  // namespace
}  // namespace conveyor::apps::common
