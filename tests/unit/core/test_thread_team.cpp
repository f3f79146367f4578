#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"
#include "core/thread_team.hpp"

namespace conveyor::core {
namespace {

int hardware_threads() {
  int n = 0;
  for (const auto& core : host_topology().cores) n += static_cast<int>(core.pus.size());
  return n;
}

TEST(ThreadTeam, EveryMemberRunsOncePerRegion) {
  for (int threads : {1, 2, 3}) {
    ThreadTeam team(threads, {});
    for (int region = 0; region < 200; ++region) {
      std::vector<std::atomic<int>> hits(threads);
      team.run([&](int member) { hits[member].fetch_add(1); });
      for (int m = 0; m < threads; ++m) ASSERT_EQ(hits[m].load(), 1) << "member " << m;
    }
  }
}

TEST(ThreadTeam, RethrowsAMembersExceptionAfterJoining) {
  ThreadTeam team(2, {});
  std::atomic<int> finished{0};
  EXPECT_THROW(team.run([&](int member) {
    if (member == 1) throw std::runtime_error("member failed");
    finished.fetch_add(1);
  }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 1);
  // The team is still usable afterwards.
  std::atomic<int> count{0};
  team.run([&](int) { count.fetch_add(1); });
  EXPECT_EQ(count.load(), 2);
}

TEST(ThreadTeam, PlacementGivesDistinctCpusAndRejectsTooMany) {
  int n = hardware_threads();
  for (auto binding : {ThreadBinding::Scatter, ThreadBinding::Compact}) {
    std::vector<int> cpus = ThreadTeam::placement(n, binding);
    EXPECT_EQ(std::set<int>(cpus.begin(), cpus.end()).size(), static_cast<std::size_t>(n));
  }
  EXPECT_TRUE(ThreadTeam::placement(1, ThreadBinding::None).empty());
  EXPECT_THROW(ThreadTeam::placement(n + 1, ThreadBinding::Scatter), UsageError);
  EXPECT_THROW(ThreadTeam::placement(0, ThreadBinding::Scatter), UsageError);
}

TEST(ThreadTeam, PinnedMembersRunOnTheirCpus) {
  int n = std::min(2, hardware_threads());
  ThreadTeam team(n, ThreadTeam::placement(n, ThreadBinding::Compact));
  std::vector<int> seen(n, -1);
  team.run([&](int member) { seen[member] = sched_getcpu(); });
  EXPECT_EQ(seen, team.cpus());
}

}  // namespace
}  // namespace conveyor::core
