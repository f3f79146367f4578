// Differential test of the distributed layer: random task graphs over random owners (some tasks
// placed on a random rank instead of the owner, some data moved to another owner, some read back
// with acquire or gathered mid-graph) run across the job's ranks, and the same tasks run one by
// one on every rank; every datum must match exactly (integer kernels). The runtimes on the ranks
// include emulated devices in some configurations, so that copies between a device and the host
// happen on both sides of a message.
//
// Every rank draws the same random numbers (same seed), so every rank submits the same flow.
// CONVEYOR_DIFF_SEED=<n> repeats a run, CONVEYOR_DIST_GRAPHS=<n> sets graphs per configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "conveyor/distributed.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

using u32 = std::uint32_t;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

struct OpArgs {
  u32 read_write;
  u32 salt;
};

// t[e] = (rw ? 3 t[e] : 0) + salt + sum_j j * r_j[e mod count_j]; buffers may be strided (ld).
void op(const TaskContext& t) {
  OpArgs a = t.args<OpArgs>();
  const Buffer& out = t.buffer(0);
  u32* o = t.data<u32>(0);
  for (std::size_t e = 0; e < out.rows; ++e) {
    u32 acc = (a.read_write ? 3u * o[e] : 0u) + a.salt;
    for (std::size_t j = 1; j < t.size(); ++j)
      acc += static_cast<u32>(j) * t.data<u32>(j)[e % t.buffer(j).rows];
    o[e] = acc;
  }
}

struct Config {
  const char* name;
  int cpus;
  int emulated;
  const char* scheduler;
};

void run_graph(Distributed& dist, std::mt19937_64& rng, const Codelet& codelet) {
  auto uniform = [&](std::size_t lo, std::size_t hi) { return lo + rng() % (hi - lo + 1); };
  const int ranks = dist.size();
  struct Item {
    std::vector<u32> memory;  // this rank's memory for it, when given (else the layer's)
    std::vector<u32> expected;
    DistributedData data;
  };
  std::vector<Item> items(uniform(1, 7));
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    std::size_t len = uniform(1, 300);
    it.expected.resize(len);
    for (auto& x : it.expected) x = static_cast<u32>(rng());
    int owner = static_cast<int>(rng() % static_cast<std::uint64_t>(ranks));
    bool extra = rng() % 3 == 0;  // drawn on every rank, so that all ranks stay in step
    bool give = owner == dist.rank() || extra;  // some non-owners give memory too
    it.memory = give ? it.expected : std::vector<u32>{};
    it.data = dist.register_vector(give ? it.memory.data() : nullptr, len, owner,
                                   "v" + std::to_string(i));
  }
  // Checks, on the owner, that its copy holds the expected contents.
  auto check_owned = [&](const Item& it, const std::string& when) {
    if (it.data.owner() != dist.rank()) return;
    const u32* got = static_cast<const u32*>(it.data.local().host());
    for (std::size_t e = 0; e < it.expected.size(); ++e)
      if (got[e] != it.expected[e]) {
        ADD_FAILURE() << when << ": " << it.data.name() << "[" << e << "] is " << got[e]
                      << ", expected " << it.expected[e];
        return;
      }
  };

  std::size_t tasks = uniform(1, 30);
  for (std::size_t k = 0; k < tasks; ++k) {
    std::size_t roll = rng() % 40;
    if (roll == 0) {  // read back on the owner mid-graph
      Item& it = items[uniform(0, items.size() - 1)];
      HostAccess h = dist.acquire(it.data, Access::Read);
      if (h.data()) check_owned(it, "acquire");
      continue;
    }
    if (roll == 1) {  // move ownership
      Item& it = items[uniform(0, items.size() - 1)];
      dist.set_owner(it.data, static_cast<int>(rng() % static_cast<std::uint64_t>(ranks)));
      continue;
    }
    std::vector<std::size_t> pick(items.size());
    for (std::size_t i = 0; i < pick.size(); ++i) pick[i] = i;
    std::shuffle(pick.begin(), pick.end(), rng);
    std::size_t reads = uniform(0, std::min<std::size_t>(2, items.size() - 1));
    OpArgs args{static_cast<u32>(rng() % 2), static_cast<u32>(rng())};
    std::vector<DistributedAccess> acc{
        {items[pick[0]].data, args.read_write ? Access::ReadWrite : Access::Write}};
    for (std::size_t j = 1; j <= reads; ++j) acc.push_back({items[pick[j]].data, Access::Read});
    int priority = static_cast<int>(rng() % 3);
    auto bytes = std::as_bytes(std::span(&args, 1));
    if (rng() % 6 == 0)  // not on the owner: the result travels home
      dist.submit_on(static_cast<int>(rng() % static_cast<std::uint64_t>(ranks)), codelet, acc,
                     priority, {}, bytes);
    else
      dist.submit(codelet, acc, priority, {}, bytes);
    Item& out = items[pick[0]];
    for (std::size_t e = 0; e < out.expected.size(); ++e) {
      u32 v = (args.read_write ? 3u * out.expected[e] : 0u) + args.salt;
      for (std::size_t j = 1; j <= reads; ++j) {
        const Item& in = items[pick[j]];
        v += static_cast<u32>(j) * in.expected[e % in.expected.size()];
      }
      out.expected[e] = v;
    }
  }
  dist.wait_all();
  for (const auto& it : items) check_owned(it, "after wait_all");
  // Everything to one rank, which checks all of it.
  const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(ranks));
  for (auto& it : items) dist.gather(it.data, root);
  dist.wait_all();
  if (dist.rank() == root)
    for (const auto& it : items) {
      const u32* got = static_cast<const u32*>(it.data.local().host());
      for (std::size_t e = 0; e < it.expected.size(); ++e)
        if (got[e] != it.expected[e]) {
          ADD_FAILURE() << "gathered on rank " << root << ": " << it.data.name() << "[" << e
                        << "] is " << got[e] << ", expected " << it.expected[e];
          break;
        }
    }
  for (auto& it : items) dist.unregister(it.data);
}

TEST(DistributedDifferential, RandomGraphsAcrossRanksMatchASequentialRun) {
  const std::uint64_t seed = env_or("CONVEYOR_DIFF_SEED", 20261123);
  const std::uint64_t graphs = env_or("CONVEYOR_DIST_GRAPHS", 40);
  Codelet codelet("op");
  codelet.cpu(op).cuda(op);  // the emulated device runs "cuda" code on host memory
  const Config configs[] = {{"cpu only", 1, 0, "eager"},
                            {"cpu + 1 emulated device, offload", 1, 1, "offload"},
                            {"cpu + 2 emulated devices, eager", 1, 2, "eager"}};
  std::mt19937_64 rng(seed);
  for (const Config& c : configs) {
    RuntimeOptions o;
    o.cpus = c.cpus;
    o.pin = false;
    o.scheduler = c.scheduler;
    if (std::string(c.scheduler) == "offload") o.offload = {"op"};
    std::unique_ptr<Runtime> rt = test::make_emulated_runtime(o, c.emulated);
    Distributed dist(*rt);
    for (std::uint64_t g = 0; g < graphs; ++g) {
      std::uint64_t graph_seed = rng();
      std::mt19937_64 graph_rng(graph_seed);
      SCOPED_TRACE(std::string("CONVEYOR_DIFF_SEED=") + std::to_string(seed) + " configuration " +
                   c.name + " graph " + std::to_string(g));
      run_graph(dist, graph_rng, codelet);
    }
    std::uint64_t messages = 0;
    for (const auto& s : dist.all_stats()) messages += s.messages_sent;
    if (std::getenv("CONVEYOR_DIFF_VERBOSE") && dist.rank() == 0)
      std::printf("%s: %llu messages\n", c.name, static_cast<unsigned long long>(messages));
    if (dist.size() > 1) {
      EXPECT_GT(messages, graphs) << c.name << ": the graphs hardly communicated";
    }
    if (c.emulated > 0 && dist.rank() == 0 && dist.size() > 1) {
      EXPECT_GT(rt->stats().h2d_copies, 0u) << c.name << ": no task ran on a device";
    }
  }
}

}  // namespace
}  // namespace conveyor
