// The distributed layer's rules, on however many ranks the job has (ctest runs 2 and 4): owner
// computes, cached copies reused until the owner writes, writes by a non-owner sent home, acquire /
// gather / set_owner, ranks submitting at very different speeds, a failure on one rank reported on
// all of them, and a rank that dies.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"

namespace conveyor {
namespace {

using u32 = std::uint32_t;

RuntimeOptions small_runtime() {
  RuntimeOptions o;
  o.cpus = 1;  // the CI machine has 2 cores for up to 4 ranks
  o.pin = false;
  return o;
}

struct Step {
  u32 salt;
};

// x[0][e] = 3 x[0][e] + salt + x[1][e] (x[1] optional): order-sensitive, so a stale or misordered
// input shows.
Codelet make_update() {
  Codelet c("update");
  c.cpu([](const TaskContext& t) {
    auto s = t.args<Step>();
    u32* x = t.data<u32>(0);
    for (std::size_t e = 0; e < t.buffer(0).rows; ++e)
      x[e] = 3 * x[e] + s.salt + (t.size() > 1 ? t.data<u32>(1)[e] : 0u);
  });
  return c;
}

std::span<const std::byte> bytes_of(const Step& s) { return std::as_bytes(std::span(&s, 1)); }

TEST(Distributed, TasksRunOnTheOwnerOfTheirFirstWrittenData) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  Codelet update = make_update();
  const int n = dist.size();
  std::vector<std::vector<u32>> mem(static_cast<std::size_t>(n), std::vector<u32>(8, 1));
  std::vector<DistributedData> x;
  for (int r = 0; r < n; ++r)
    x.push_back(dist.register_vector(r == dist.rank() ? mem[r].data() : nullptr, 8, r));
  for (int r = 0; r < n; ++r) {
    Step s{static_cast<u32>(r)};
    TaskId id = dist.submit(update, {{x[r], Access::ReadWrite}, {x[(r + 1) % n], Access::Read}}, 0,
                            {}, bytes_of(s));
    EXPECT_EQ(id != 0, r == dist.rank()) << "task " << r;
  }
  dist.wait_all();
  DistributedStats s = dist.stats();
  EXPECT_EQ(s.tasks, 1u);
  EXPECT_EQ(s.tasks_skipped, static_cast<std::uint64_t>(n - 1));
  for (auto& d : x) dist.unregister(d);
}

TEST(Distributed, ReadersReuseACachedCopyUntilTheOwnerWritesAgain) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  if (dist.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  Codelet update = make_update();
  std::vector<u32> xm(16, 2), ym(16, 5);
  DistributedData x = dist.register_vector(dist.rank() == 0 ? xm.data() : nullptr, 16, 0, "x");
  DistributedData y = dist.register_vector(dist.rank() == 1 ? ym.data() : nullptr, 16, 1, "y");
  u32 ex = 2, ey = 5;
  auto on_y = [&](u32 salt) {  // y = 3y + salt + x, on rank 1
    Step s{salt};
    dist.submit(update, {{y, Access::ReadWrite}, {x, Access::Read}}, 0, {}, bytes_of(s));
    ey = 3 * ey + salt + ex;
  };
  auto on_x = [&](u32 salt) {
    Step s{salt};
    dist.submit(update, {{x, Access::ReadWrite}}, 0, {}, bytes_of(s));
    ex = 3 * ex + salt;
  };
  on_y(1);
  on_y(2);
  on_y(3);  // three readers of one version: one message
  on_x(4);
  on_y(5);  // a new version: one more
  dist.wait_all();
  auto all = dist.all_stats();
  EXPECT_EQ(all[0].messages_sent, 2u);
  EXPECT_EQ(all[1].messages_received, 2u);
  EXPECT_EQ(all[1].bytes_received, 2u * 16 * sizeof(u32));
  if (dist.rank() == 1) {
    for (u32 v : ym) EXPECT_EQ(v, ey);
  }
  if (dist.rank() == 0) {
    for (u32 v : xm) EXPECT_EQ(v, ex);
  }
  dist.unregister(x);
  dist.unregister(y);
}

TEST(Distributed, WritesOnAnotherRankGoBackToTheOwner) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  if (dist.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  Codelet update = make_update();
  std::vector<u32> xm(4, 7);
  DistributedData x = dist.register_vector(dist.rank() == 0 ? xm.data() : nullptr, 4, 0, "x");
  Step s{1};
  std::vector<DistributedAccess> acc{{x, Access::ReadWrite}};
  TaskId id = dist.submit_on(1, update, acc, 0, {}, bytes_of(s));
  EXPECT_EQ(id != 0, dist.rank() == 1);
  dist.wait_all();
  if (dist.rank() == 0) {
    for (u32 v : xm) EXPECT_EQ(v, 3u * 7 + 1);
  }
  auto all = dist.all_stats();
  EXPECT_EQ(all[0].messages_sent, 1u);  // the current contents, for ReadWrite
  EXPECT_EQ(all[1].messages_sent, 1u);  // the result, home
  dist.unregister(x);
}

TEST(Distributed, AcquireGatherAndSetOwner) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  Codelet update = make_update();
  const int last = dist.size() - 1;
  std::vector<u32> xm(4, 1);
  // Every rank gives memory: the owner's holds the data, rank 0's receives the gather.
  DistributedData x = dist.register_vector(xm.data(), 4, last, "x");
  {
    HostAccess h = dist.acquire(x, Access::ReadWrite);
    EXPECT_EQ(h.data() != nullptr, dist.rank() == last);
    if (h.data())
      for (int e = 0; e < 4; ++e) h.as<u32>()[e] = 10;
  }
  Step s{2};
  dist.submit(update, {{x, Access::ReadWrite}}, 0, {}, bytes_of(s));  // on `last`: 32
  dist.gather(x, 0);
  dist.wait_all();
  if (dist.rank() == 0) {
    for (u32 v : xm) EXPECT_EQ(v, 32u);
  }
  dist.set_owner(x, 0);
  EXPECT_EQ(x.owner(), 0);
  TaskId id = dist.submit(update, {{x, Access::ReadWrite}}, 0, {}, bytes_of(s));  // on 0: 98
  EXPECT_EQ(id != 0, dist.rank() == 0);
  dist.wait_all();
  if (dist.rank() == 0) {
    HostAccess h = dist.acquire(x, Access::Read);
    EXPECT_EQ(h.as<u32>()[0], 98u);
  } else {
    HostAccess h = dist.acquire(x, Access::Read);
    EXPECT_EQ(h.data(), nullptr);
  }
  dist.unregister(x);
}

TEST(Distributed, BadUseIsAUsageErrorOnEveryRank) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  std::vector<u32> m(4);
  EXPECT_THROW(dist.register_vector(m.data(), 4, dist.size()), UsageError);
  EXPECT_THROW(dist.register_vector(m.data(), 0, 0), UsageError);
  DistributedData x = dist.register_vector(m.data(), 4, 0);
  Codelet update = make_update();
  EXPECT_THROW(dist.submit(update, {{x, Access::ReadWrite}, {x, Access::Read}}), UsageError);
  std::vector<DistributedAccess> acc{{x, Access::ReadWrite}};
  EXPECT_THROW(dist.submit_on(dist.size(), update, acc), UsageError);
  dist.unregister(x);
  EXPECT_THROW(dist.submit(update, {{x, Access::ReadWrite}}), UsageError);
}

// One rank runs far behind the others (it sleeps before each submission), so the others' messages
// reach it long before it posts the receives: they wait in MPI as unexpected messages, matched
// later by their tags. The result must not depend on it.
TEST(Distributed, RanksSubmittingAtVeryDifferentSpeedsStillMatch) {
  Runtime rt(small_runtime());
  Distributed dist(rt);
  Codelet update = make_update();
  const int n = dist.size();
  // Short messages go eagerly (the sender is done before the receive exists); long ones need the
  // receiver (rendezvous), so the sender's next write of the data waits for the lagging rank.
  for (std::size_t len : {std::size_t{16}, std::size_t{20000}}) {
    std::vector<std::vector<u32>> mem(static_cast<std::size_t>(n), std::vector<u32>(len, 1));
    std::vector<DistributedData> x;
    for (int r = 0; r < n; ++r) x.push_back(dist.register_vector(mem[r].data(), len, r));
    std::vector<u32> expected(static_cast<std::size_t>(n), 1);
    const int steps = 100;
    for (int s = 0; s < steps; ++s) {
      // The last rank lags in the first half, rank 0 in the second: both directions.
      bool slow = (s < steps / 2) ? dist.rank() == n - 1 : dist.rank() == 0;
      if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      int target = s % n, source = (s * 7 + 1) % n;
      Step st{static_cast<u32>(s)};
      if (source == target) {
        dist.submit(update, {{x[target], Access::ReadWrite}}, 0, {}, bytes_of(st));
        expected[target] = 3 * expected[target] + st.salt;
      } else {
        dist.submit(update, {{x[target], Access::ReadWrite}, {x[source], Access::Read}}, 0, {},
                    bytes_of(st));
        expected[target] = 3 * expected[target] + st.salt + expected[source];
      }
    }
    dist.wait_all();
    // EXPECT, not ASSERT: a rank leaving the test early would leave the others in a collective.
    std::size_t wrong = 0;
    for (u32 v : mem[static_cast<std::size_t>(dist.rank())])
      wrong += v != expected[static_cast<std::size_t>(dist.rank())];
    EXPECT_EQ(wrong, 0u) << len << " elements";
    if (n > 1) {
      EXPECT_GT(dist.stats().messages_received, 0u);
    }
    for (auto& d : x) dist.unregister(d);
  }
}

// A task fails on the last rank while the others wait for data it would have sent: every rank's
// wait_all must throw the same error, naming the rank and the task, instead of hanging (ctest's
// timeout bounds the test if it did).
TEST(DistributedFailure, ATaskFailingOnOneRankIsReportedOnEveryRank) {
  // Short messages (eager) and long ones (rendezvous: sends stay unmatched when their receiver
  // gives up), each in a fresh layer: a failed layer stays failed.
  for (std::size_t len : {std::size_t{64}, std::size_t{20000}}) {
    SCOPED_TRACE(std::to_string(len) + " elements per message");
    Runtime rt(small_runtime());
    Distributed dist(rt);
    const int n = dist.size();
    const int bad_rank = n - 1;
    Codelet update = make_update();
    Codelet broken("broken");
    broken.cpu([](const TaskContext&) { throw std::runtime_error("injected failure"); });
    std::vector<std::vector<u32>> mem(static_cast<std::size_t>(n), std::vector<u32>(len, 1));
    std::vector<DistributedData> x;
    for (int r = 0; r < n; ++r) x.push_back(dist.register_vector(mem[r].data(), len, r));
    for (int s = 0; s < 40; ++s) {
      int target = s % n, source = (s + 1) % n;
      if (s == 5) {
        dist.submit(broken, {{x[bad_rank], Access::ReadWrite}}, 0, "the broken task");
        continue;
      }
      Step st{static_cast<u32>(s)};
      if (source == target)
        dist.submit(update, {{x[target], Access::ReadWrite}}, 0, {}, bytes_of(st));
      else
        dist.submit(update, {{x[target], Access::ReadWrite}, {x[source], Access::Read}}, 0, {},
                    bytes_of(st));
    }
    std::string message;
    try {
      dist.wait_all();
    } catch (const Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("rank " + std::to_string(bad_rank)), std::string::npos) << message;
    EXPECT_NE(message.find("the broken task"), std::string::npos) << message;
    EXPECT_NE(message.find("injected failure"), std::string::npos) << message;
    // The layer stays failed, the same way on every rank.
    EXPECT_THROW(dist.wait_all(), Error);
  }
}

// A rank that dies in the middle of a graph (it exits, as a crash or the kernel's OOM killer would
// end it) while the others wait for its messages: the job must end, never hang. Open MPI's
// launcher ends the other ranks when one exits without MPI_Finalize and names the dead one; the
// mpi_rank_death test (tests/CMakeLists.txt) runs this with CONVEYOR_TEST_RANK_DIES=1, expects
// that report and bounds the wait.
TEST(RankDeath, ARankThatDiesMidGraphEndsTheJob) {
  if (!std::getenv("CONVEYOR_TEST_RANK_DIES")) GTEST_SKIP() << "run by the mpi_rank_death test";
  Runtime rt(small_runtime());
  Distributed dist(rt);
  const int n = dist.size();
  Codelet update = make_update();
  Codelet dies("dies");
  dies.cpu([](const TaskContext&) { std::_Exit(7); });
  std::vector<std::vector<u32>> mem(static_cast<std::size_t>(n), std::vector<u32>(64, 1));
  std::vector<DistributedData> x;
  for (int r = 0; r < n; ++r) x.push_back(dist.register_vector(mem[r].data(), 64, r));
  for (int s = 0; s < 40; ++s) {
    int target = s % n, source = (s + 1) % n;
    if (s == 10) {
      dist.submit(dies, {{x[n - 1], Access::ReadWrite}});
      continue;
    }
    Step st{static_cast<u32>(s)};
    dist.submit(update, {{x[target], Access::ReadWrite}, {x[source], Access::Read}}, 0, {},
                bytes_of(st));
  }
  dist.wait_all();  // the others wait here for the dead rank's data until the launcher ends them
  ADD_FAILURE() << "rank " << dist.rank() << " finished a graph whose rank " << n - 1 << " died";
}

}  // namespace
}  // namespace conveyor
