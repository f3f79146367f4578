// The closed form of the distributed Cholesky's messages against a direct count: the owner-computes
// rule and "send each version once to each rank that reads it" applied task by task to the flow
// (what the distributed layer does, written here independently and naively).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "cholesky/cholesky_graph.hpp"
#include "cholesky/communication.hpp"

namespace conveyor::apps::cholesky {
namespace {

CommunicationVolume count_directly(int n, int block, ProcessGrid grid, std::size_t elem) {
  const int t = (n + block - 1) / block;
  auto size = [&](int i) { return static_cast<std::uint64_t>(std::min(block, n - i * block)); };
  // holders[(i, j)]: ranks whose copy of tile (i, j) is current.
  std::vector<std::set<int>> holders(static_cast<std::size_t>(t) * t);
  for (int j = 0; j < t; ++j)
    for (int i = j; i < t; ++i) holders[i + j * t] = {grid.owner(i, j)};
  CommunicationVolume v;
  auto read = [&](int i, int j, int exec) {
    if (holders[i + j * t].insert(exec).second) {
      ++v.messages;
      v.bytes += size(i) * size(j) * elem;
    }
  };
  auto write = [&](int i, int j) { holders[i + j * t] = {grid.owner(i, j)}; };
  for_each_task(t, [&](Kernel kernel, int i, int j, int k, int) {
    switch (kernel) {
      case Kernel::Potrf:
        write(k, k);
        break;
      case Kernel::Trsm:
        read(k, k, grid.owner(i, k));
        write(i, k);
        break;
      case Kernel::Gemm:
        read(i, k, grid.owner(i, j));
        read(j, k, grid.owner(i, j));
        write(i, j);
        break;
      case Kernel::Syrk:
        read(i, k, grid.owner(i, i));
        write(i, i);
        break;
    }
  });
  return v;
}

TEST(CholeskyCommunication, ClosedFormEqualsADirectCount) {
  for (int p = 1; p <= 4; ++p)
    for (int q = 1; q <= 4; ++q)
      for (int t : {1, 2, 3, 5, 8, 13})
        for (int ragged : {0, 7}) {
          const int block = 16, n = t * block - ragged;
          auto closed = block_cyclic_volume(n, block, {p, q}, 8);
          auto direct = count_directly(n, block, {p, q}, 8);
          EXPECT_EQ(closed.messages, direct.messages) << p << "x" << q << " t=" << t;
          EXPECT_EQ(closed.bytes, direct.bytes) << p << "x" << q << " t=" << t;
        }
}

TEST(CholeskyCommunication, OneRankSendsNothing) {
  EXPECT_EQ(block_cyclic_volume(4096, 256, {1, 1}, 8).messages, 0u);
}

TEST(CholeskyCommunication, KnownSmallCases) {
  // 2 tiles on 1x2: A_00 and A_10 on rank 0, A_11 on rank 1; trsm(1,0) runs on rank 0 (A_00
  // local), syrk(1,0) on rank 1 reads A_10: 1 message.
  EXPECT_EQ(block_cyclic_volume(32, 16, {1, 2}, 8).messages, 1u);
  EXPECT_EQ(block_cyclic_volume(32, 16, {1, 2}, 8).bytes, 16u * 16 * 8);
  // 2 tiles on 2x1: A_00 on rank 0, A_10 and A_11 on rank 1; trsm(1,0) on rank 1 reads A_00:
  // 1 message; syrk(1,0) reads A_10 locally.
  EXPECT_EQ(block_cyclic_volume(32, 16, {2, 1}, 8).messages, 1u);
  // Large t: about t^2/2 (P + Q - 2).
  auto v = block_cyclic_volume(256 * 64, 256, {2, 2}, 8);
  EXPECT_NEAR(static_cast<double>(v.messages), 64.0 * 64 / 2 * 2, 64.0 * 4);
}

}  // namespace
}  // namespace conveyor::apps::cholesky
