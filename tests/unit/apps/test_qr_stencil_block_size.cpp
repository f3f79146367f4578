// The default tile size of conveyor qr and conveyor stencil: the tile rule of
// apps/common/block_size.hpp with each workload's own tasks, as conveyor cholesky's.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/block_size.hpp"
#include "qr/qr_run.hpp"
#include "scratch_dir.hpp"
#include "stencil/stencil_run.hpp"

namespace conveyor::apps::common {
namespace {

using conveyor::test::ScratchDir;

// A GPU beside 16 cores that together run QR's kernels several times and the stencil 20x slower
// than it (rates of the order of platforms/4xV100-pcie3.json's, for one faster GPU).
constexpr const char* kGpuNode = R"({
  "name": "gpu-node",
  "host": {"cores": 16, "gflops": {"geqrt": 18, "gemqrt": 18, "tpqrt": 23, "tpmqrt": 44,
                                   "jacobi": 3.75}},
  "devices": [{"id": "gpu", "memory_gb": 141, "launch_us": 3,
               "gflops": {"geqrt": 500, "gemqrt": 10000, "tpqrt": 800, "tpmqrt": 12000,
                          "jacobi": 1300}}],
  "links": [{"between": ["host", "gpu:0"], "gbs": 34, "latency_us": 7.5}]
})";

std::string platform(const ScratchDir& dir) {
  std::string file = dir.path("gpu-node.json");
  std::ofstream(file) << kGpuNode;
  return file;
}

qr::RunConfig qr_on(const std::string& file, int n) {
  qr::RunConfig c;
  c.n = n;
  c.runtime.platform = file;
  return c;
}

stencil::RunConfig stencil_on(const std::string& file, int n) {
  stencil::RunConfig c;
  c.n = n;
  c.runtime.platform = file;
  return c;
}

TEST(QrModelBlock, AGpuBesideTheCoresGetsTheTileItGetsAlone) {
  ScratchDir dir;
  const std::string file = platform(dir);
  for (int n : {8192, 16384, 32768}) {
    qr::RunConfig all = qr_on(file, n);  // the 16 cores and the GPU
    qr::RunConfig gpu = all;
    gpu.runtime.cpus = 0;
    EXPECT_EQ(qr::block_for(all), qr::block_for(gpu)) << n;
    // The GPU's panel kernels (geqrt 500, tpqrt 800 GFLOP/s against tpmqrt's 12000) make tiles
    // below 2048 faster there: the models choose (512 to 576 here), not the count, which gives a
    // device alone 2048 at these n.
    EXPECT_LT(qr::block_for(gpu), default_block(n, 1, kMaxDeviceBlock)) << n;
  }
}

TEST(QrModelBlock, PoliciesThatIgnoreTheModelsAndCpuOnlyRunsKeepTheCountRule) {
  ScratchDir dir;
  qr::RunConfig c = qr_on(platform(dir), 16384);
  c.runtime.scheduler = "eager";
  EXPECT_EQ(qr::block_for(c), default_block(16384, 17));
  qr::RunConfig cpus;
  cpus.n = 8192;
  cpus.runtime.cpus = 16;
  EXPECT_EQ(qr::block_for(cpus), default_block(8192, 16));
  cpus.block = 320;  // given: kept
  EXPECT_EQ(qr::block_for(cpus), 320);
}

// A tall matrix on CPU workers: the tile of a square matrix with as many elements, at most about
// twice as high as the matrix is wide; and a tree of one domain per worker where the tile columns
// are too few to keep the workers busy.
TEST(QrTallBlock, TilesAndDomainsForATallMatrixOnCpuWorkers) {
  qr::RunConfig c;
  c.runtime.cpus = 2;
  c.m = 4000, c.n = 1000;  // as a square matrix of 2000: 320 (default_block(2000, 2))
  EXPECT_EQ(qr::block_for(c), default_block(2000, 2));
  EXPECT_EQ(qr::domains_for(c, 320), 1);  // 4 tile columns: 16 >= 2 x 2
  c.m = 100000, c.n = 64;                 // 2n = 128 caps the square rule's tile
  EXPECT_EQ(qr::block_for(c), 128);
  EXPECT_EQ(qr::domains_for(c, 128), 2);  // one tile column: one domain per worker
  c.n = 70;                               // 2n rounded up to the granule
  EXPECT_EQ(qr::block_for(c), 192);
  c.m = 130, c.n = 64;  // 3 tile rows of 64: one domain per two rows at most
  EXPECT_EQ(qr::domains_for(c, 64), 1);
  c.runtime.cpus = 16, c.m = 100000;
  EXPECT_EQ(qr::domains_for(c, 128), 16);
  c.domains = 3;  // given: as given
  EXPECT_EQ(qr::domains_for(c, 128), 3);
  c.domains = 0;
  c.runtime.devices = {"opencl:0"};  // the TT kernels run on CPU workers only: the flat tree
  EXPECT_EQ(qr::domains_for(c, 128), 1);
  c.runtime.devices.clear();
  c.block = 96;  // given: as given, tall or not
  EXPECT_EQ(qr::block_for(c), 96);
  c.block = 0;
  c.m = c.n = 2048;  // square: the shared rule, as before
  c.runtime.cpus = 2;
  EXPECT_EQ(qr::block_for(c), default_block(2048, 2));
}

// The inner blocking on CPU workers alone: 64, or the tile / 8 above 512, at most 128, never
// above the tile; with devices 32; an ib given is kept up to the tile.
TEST(QrInnerBlock, GrowsWithTheTileOnCpusUnlessGiven) {
  EXPECT_EQ(qr::inner_block_for(0, 32, false), 32);
  EXPECT_EQ(qr::inner_block_for(0, 64, false), 64);
  EXPECT_EQ(qr::inner_block_for(0, 256, false), 64);
  EXPECT_EQ(qr::inner_block_for(0, 512, false), 64);
  EXPECT_EQ(qr::inner_block_for(0, 640, false), 80);
  EXPECT_EQ(qr::inner_block_for(0, 1024, false), 128);
  EXPECT_EQ(qr::inner_block_for(0, 2048, false), 128);
  EXPECT_EQ(qr::inner_block_for(0, 1024, true), 32);
  EXPECT_EQ(qr::inner_block_for(0, 16, true), 16);
  EXPECT_EQ(qr::inner_block_for(48, 1024, false), 48);
  EXPECT_EQ(qr::inner_block_for(200, 96, true), 96);
  qr::RunConfig c;
  c.runtime.cpus = 2;
  EXPECT_EQ(qr::inner_block(c, 640), 80);
  c.runtime.devices = {"opencl:0"};
  EXPECT_EQ(qr::inner_block(c, 640), 32);
  c.runtime.devices.clear();
  c.runtime.platform = "platforms/h200-node.json";  // a simulated node: its devices by default
  EXPECT_EQ(qr::inner_block(c, 640), 32);
  c.ib = 100;
  EXPECT_EQ(qr::inner_block(c, 640), 100);
}

TEST(StencilModelBlock, AGpuBesideTheCoresGetsTheTileItGetsAlone) {
  ScratchDir dir;
  const std::string file = platform(dir);
  for (int n : {8192, 16384, 32768}) {
    for (int depth : {1, 4}) {
      stencil::RunConfig all = stencil_on(file, n);
      all.temporal_block = depth;
      stencil::RunConfig gpu = all;
      gpu.runtime.cpus = 0;
      EXPECT_EQ(stencil::block_for(gpu), 2048) << n;
      EXPECT_EQ(stencil::block_for(all), stencil::block_for(gpu)) << n << " depth " << depth;
    }
  }
}

TEST(StencilModelBlock, PoliciesThatIgnoreTheModelsAndCpuOnlyRunsKeepTheCountRule) {
  ScratchDir dir;
  stencil::RunConfig c = stencil_on(platform(dir), 16384);
  c.runtime.scheduler = "round-robin";
  EXPECT_EQ(stencil::block_for(c), default_block(16384, 17));
  stencil::RunConfig cpus;
  cpus.n = 16384;
  cpus.runtime.cpus = 16;
  EXPECT_EQ(stencil::block_for(cpus), sweep_block(16384, 16));
}

// A sweep's tiles on CPU workers alone: about 2 sqrt(2p) per side (no critical path to starve),
// against a factorisation's 4 sqrt(p); the same cap.
TEST(StencilSweepBlock, FewerLargerTilesThanAFactorisationsOnTheCpus) {
  EXPECT_EQ(sweep_block(2048, 2), 512);  // 4 tiles per side; default_block: 320 (7)
  EXPECT_EQ(default_block(2048, 2), 320);
  EXPECT_EQ(sweep_block(4096, 2), 1024);    // 4; default_block: 640
  EXPECT_EQ(sweep_block(4096, 16), 320);    // 12 (ceil(2 sqrt(32))); default_block: 256 (16)
  EXPECT_EQ(sweep_block(16384, 16), 1024);  // the cap, as default_block's
  EXPECT_EQ(sweep_block(100, 64), 64);      // never below the granule
  stencil::RunConfig c;
  c.n = 4096;
  c.runtime.cpus = 2;
  EXPECT_EQ(stencil::block_for(c), 1024);
  c.block = 256;  // given: as given
  EXPECT_EQ(stencil::block_for(c), 256);
}

}  // namespace
}  // namespace conveyor::apps::common
