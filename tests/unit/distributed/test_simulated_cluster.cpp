// Simulated clusters (issue 27): the MPI layer's code on ranks that are threads of one process, on
// one virtual clock, with messages timed by the network model. A message takes exactly the send
// overhead, the route (latency + bytes / bandwidth) and the receive overhead, one latency more when
// it needs a rendezvous; data arrive when kernels run; a failure on one rank reaches every rank.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/simulated_cluster.hpp"
#include "scratch_dir.hpp"

namespace conveyor {
namespace {

// 1 us overhead per side, 2 us latency, 1 GB/s NICs (1 byte per ns), eager up to 4 KB.
constexpr double kOverhead = 1e-6, kLatency = 2e-6, kBytesPerSecond = 1e9;

class SimulatedCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path("node.json")) << R"({"name": "node",
      "host": {"cores": 1, "gbs": 1e6}, "links": []})";
    std::ofstream(dir_.path("cluster.json")) << R"({"name": "c", "nodes": 8, "node": "node.json",
      "network": {"topology": "crossbar", "nic_gbs": 1, "latency_us": 2, "overhead_us": 1,
                  "eager_bytes": 4096}})";
    options_.cluster = dir_.path("cluster.json");
    options_.runtime.pin = false;
    options_.runtime.perf_models = "none";
    options_.runtime.platform_run_kernels = true;  // the tasks' functions run (and observe)
    options_.ranks = 4;
  }
  test::ScratchDir dir_;
  SimulatedClusterOptions options_;
};

// Rank 0 owns `count` doubles (0, 1, 2, ...); rank 1 reads them in a task that records the
// virtual time at which it started and what it saw.
struct OneMessage {
  double start_s = -1;
  std::vector<double> seen;
};

OneMessage send_one(SimulatedClusterOptions options, std::size_t count) {
  OneMessage out;
  std::mutex m;
  run_simulated_cluster(options, [&](Distributed& dist) {
    std::vector<double> mine(count);
    for (std::size_t i = 0; i < count; ++i) mine[i] = static_cast<double>(i);
    auto d = dist.register_vector(dist.rank() == 0 ? mine.data() : nullptr, count, 0, "x");
    Runtime& rt = dist.runtime();
    Codelet read("read");
    read.cpu([&](const TaskContext& t) {
      std::lock_guard lock(m);
      out.start_s = rt.seconds();
      out.seen.assign(t.data<double>(0), t.data<double>(0) + count);
    });
    dist.submit_on(1, read, {{d, Access::Read}});
    dist.wait_all();
    dist.unregister(d);
  });
  return out;
}

TEST_F(SimulatedCluster, AnEagerMessageTakesOverheadsLatencyAndBytesOverBandwidth) {
  options_.ranks = 2;
  const std::size_t count = 500;  // 4000 bytes: eager
  OneMessage r = send_one(options_, count);
  EXPECT_NEAR(r.start_s, 2 * kOverhead + kLatency + count * 8 / kBytesPerSecond, 1e-12);
}

TEST_F(SimulatedCluster, ALargeMessageWaitsForTheRendezvousHandshake) {
  options_.ranks = 2;
  const std::size_t count = 1000;  // 8000 bytes: above eager_bytes
  OneMessage r = send_one(options_, count);
  // The request there, the answer back, then the data.
  EXPECT_NEAR(r.start_s, 2 * kOverhead + 3 * kLatency + count * 8 / kBytesPerSecond, 1e-12);
}

TEST_F(SimulatedCluster, DataArriveWhenKernelsRun) {
  options_.ranks = 2;
  for (std::size_t count : {std::size_t{100}, std::size_t{1000}}) {  // eager and rendezvous
    OneMessage r = send_one(options_, count);
    ASSERT_EQ(r.seen.size(), count);
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(r.seen[i], static_cast<double>(i));
  }
}

TEST_F(SimulatedCluster, CountsAndTimesAreTheSameEveryRun) {
  // A ring: every rank reads its left neighbour's data, writes its own, 20 rounds.
  auto ring = [&] {
    std::vector<DistributedStats> stats;
    double time = 0;
    run_simulated_cluster(options_, [&](Distributed& dist) {
      const int n = dist.size();
      std::vector<DistributedData> d;
      for (int r = 0; r < n; ++r) d.push_back(dist.register_vector<double>(nullptr, 2048, r));
      Codelet step("step");
      step.cpu([](const TaskContext&) {});
      for (int round = 0; round < 20; ++round)
        for (int r = 0; r < n; ++r)
          dist.submit(step, {{d[static_cast<std::size_t>((r + n - 1) % n)], Access::Read},
                             {d[static_cast<std::size_t>(r)], Access::ReadWrite}});
      dist.wait_all();
      auto all = dist.all_stats();
      double t = dist.max_over_ranks(dist.runtime().seconds());
      if (dist.rank() == 0) {
        stats = all;
        time = t;
      }
      for (auto& x : d) dist.unregister(x);
    });
    return std::make_pair(stats, time);
  };
  options_.runtime.platform_run_kernels = false;  // addresses only: no memory behind the data
  auto [first, t1] = ring();
  ASSERT_EQ(first.size(), 4u);
  for (const auto& s : first) {
    EXPECT_EQ(s.messages_sent, 20u);  // each round, one message to the right neighbour
    EXPECT_EQ(s.bytes_sent, 20u * 2048 * 8);
  }
  for (int run = 0; run < 3; ++run) {
    auto [again, t] = ring();
    EXPECT_EQ(t, t1);
    for (std::size_t r = 0; r < again.size(); ++r)
      EXPECT_EQ(again[r].messages_received, first[r].messages_received);
  }
  EXPECT_GT(t1, 0.0);
}

TEST_F(SimulatedCluster, AFailingTaskOnOneRankFailsEveryRank) {
  std::atomic<int> threw{0};
  EXPECT_THROW(
      run_simulated_cluster(options_,
                            [&](Distributed& dist) {
                              auto d = dist.register_vector<double>(nullptr, 8, 2);
                              Codelet bad("bad");
                              bad.cpu([](const TaskContext&) { throw std::runtime_error("boom"); });
                              Codelet read("read");
                              read.cpu([](const TaskContext&) {});
                              dist.submit(bad, {{d, Access::ReadWrite}});
                              for (int r = 0; r < dist.size(); ++r)
                                dist.submit_on(r, read, {{d, Access::Read}});
                              try {
                                dist.wait_all();
                              } catch (const Error& e) {
                                EXPECT_NE(std::string(e.what()).find("boom"), std::string::npos);
                                ++threw;
                                throw;
                              }
                            }),
      Error);
  EXPECT_EQ(threw.load(), 4);
}

TEST_F(SimulatedCluster, ARankThatThrowsDoesNotLeaveTheOthersWaiting) {
  EXPECT_THROW(run_simulated_cluster(options_,
                                     [&](Distributed& dist) {
                                       if (dist.rank() == 1) throw UsageError("rank 1 gives up");
                                       dist.barrier();
                                     }),
               UsageError);
}

// Seven ranks read what rank 0 owns: with the relay, holders forward copies along a tree, so the
// owner sends 3 of the 7 and every reader still gets the right data; without, the owner sends all.
TEST_F(SimulatedCluster, HoldersRelayCopiesAlongATree) {
  options_.ranks = 8;
  for (bool relay : {true, false}) {
    std::vector<DistributedStats> stats;
    std::atomic<int> right{0};
    run_simulated_cluster(options_, [&](Distributed& dist) {
      dist.set_relay(relay);
      std::vector<double> mine(512, 7.0);
      auto d = dist.register_vector(dist.rank() == 0 ? mine.data() : nullptr, 512, 0, "x");
      Codelet check("check");
      check.cpu([&](const TaskContext& t) {
        if (t.data<double>(0)[0] == 7.0 && t.data<double>(0)[511] == 7.0) ++right;
      });
      for (int r = 1; r < dist.size(); ++r) dist.submit_on(r, check, {{d, Access::Read}});
      dist.wait_all();
      auto all = dist.all_stats();
      if (dist.rank() == 0) stats = all;
      dist.unregister(d);
    });
    EXPECT_EQ(right.load(), 7);
    std::uint64_t total = 0;
    for (const auto& s : stats) total += s.messages_sent;
    EXPECT_EQ(total, 7u);
    EXPECT_EQ(stats[0].messages_sent, relay ? 3u : 7u) << (relay ? "relay" : "owner only");
  }
}

TEST_F(SimulatedCluster, BadRequestsAreUsageErrors) {
  options_.ranks = 9;
  EXPECT_THROW(run_simulated_cluster(options_, [](Distributed&) {}), UsageError);
  options_.ranks = 2;
  options_.cluster = dir_.path("missing.json");
  EXPECT_THROW(run_simulated_cluster(options_, [](Distributed&) {}), UsageError);
}

}  // namespace
}  // namespace conveyor
