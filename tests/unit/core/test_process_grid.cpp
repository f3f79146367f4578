#include <gtest/gtest.h>

#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"

namespace conveyor {
namespace {

TEST(ProcessGrid, ParsesPxQ) {
  ProcessGrid g = ProcessGrid::parse("2x3");
  EXPECT_EQ(g.p, 2);
  EXPECT_EQ(g.q, 3);
  EXPECT_EQ(g.size(), 6);
  EXPECT_EQ(g.to_string(), "2x3");
  EXPECT_EQ(ProcessGrid::parse("4X1").p, 4);
}

TEST(ProcessGrid, RejectsMalformedGrids) {
  for (const char* bad : {"", "2", "x2", "2x", "0x2", "2x0", "-1x2", "2x2x2", "ax2", "2 x2"})
    EXPECT_THROW(ProcessGrid::parse(bad), UsageError) << bad;
}

TEST(ProcessGrid, BlockCyclicOwnersFollowScaLapacksRowMajorGrid) {
  ProcessGrid g{2, 3};
  EXPECT_EQ(g.owner(0, 0), 0);
  EXPECT_EQ(g.owner(0, 1), 1);
  EXPECT_EQ(g.owner(0, 2), 2);
  EXPECT_EQ(g.owner(1, 0), 3);
  EXPECT_EQ(g.owner(3, 4), 1 * 3 + 1);  // (3 mod 2, 4 mod 3)
  EXPECT_EQ(g.owner(2, 3), 0);          // wraps both ways
}

TEST(ProcessGrid, SquareGridIsTheMostSquareFactorisation) {
  EXPECT_EQ(ProcessGrid::square(1).to_string(), "1x1");
  EXPECT_EQ(ProcessGrid::square(2).to_string(), "1x2");
  EXPECT_EQ(ProcessGrid::square(4).to_string(), "2x2");
  EXPECT_EQ(ProcessGrid::square(6).to_string(), "2x3");
  EXPECT_EQ(ProcessGrid::square(7).to_string(), "1x7");
  EXPECT_EQ(ProcessGrid::square(64).to_string(), "8x8");
  EXPECT_THROW(ProcessGrid::square(0), UsageError);
}

}  // namespace
}  // namespace conveyor
