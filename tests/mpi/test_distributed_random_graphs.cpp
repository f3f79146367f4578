// Differential test of the distributed layer: random task graphs over random owners (some tasks
// placed on a random rank instead of the owner, some data moved to another owner, some read back
// with acquire or gathered mid-graph) run across the job's ranks, and the same tasks run one by
// one on every rank; every datum must match exactly (integer kernels). The runtimes on the ranks
// run every scheduler under both coherence policies, on CPUs only, with emulated devices or on a
// simulated four-device platform, device memory unlimited or small (configurations() below), so
// that copies between a device and the host happen on both sides of a message.
//
// Every rank draws the same random numbers (same seed), so every rank submits the same flow.
// CONVEYOR_DIFF_SEED=<n> repeats a run, CONVEYOR_DIST_GRAPHS=<n> sets graphs per configuration
// (default 2: ctest runs the whole table), CONVEYOR_DIFF_ONLY / CONVEYOR_DIFF_MATCH select
// configurations, CONVEYOR_DIFF_LIST=1 lists them. bench/soak.sh runs many seeds over them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "conveyor/distributed.hpp"
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/simulated_platform.hpp"

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
  std::string name;
  RuntimeOptions options;
  int emulated = 0;
  bool inline_lanes = false;
};

// Device memory room for a few of the graphs' vectors (up to 1200 bytes; a task uses at most
// three): eviction and write-back on the ranks' devices.
constexpr std::uint64_t kSmallDeviceMemory = 4096;

// Every scheduler under both coherence policies, on ranks of CPU workers only, with one or two
// emulated devices (their lanes on a thread of their own or inline, alternately) or a simulated
// platform of four devices that runs the kernels (the three device-copy modes in turn), device
// memory unlimited or small. The offloaded codelet is named where there are devices, in every
// other configuration ("offload" always). No random draws here: the graphs are the seed's whatever
// configurations are selected.
std::vector<Config> configurations(const std::string& platform) {
  std::vector<Config> out;
  const DeviceCopy copies[] = {DeviceCopy::HostStaged, DeviceCopy::PeerCopy,
                               DeviceCopy::PeerDirect};
  for (Coherence policy : {Coherence::Coherent, Coherence::Naive})
    for (const char* scheduler :
         {"eager", "round-robin", "offload", "locality", "model", "model-ready"})
      for (const char* where : {"cpu", "1emu", "2emu", "4sim"})
        for (std::uint64_t limit : {std::uint64_t{0}, kSmallDeviceMemory}) {
          const std::string w = where;
          const bool devices = w != "cpu";
          if (!devices && (limit || std::string(scheduler) == "offload")) continue;
          const std::size_t k = out.size();
          Config c;
          c.options.cpus = 1;
          c.options.pin = false;
          c.options.scheduler = scheduler;
          c.options.coherence = policy;
          c.options.device_memory_limit = limit;
          if (devices && (std::string(scheduler) == "offload" || k % 2)) c.options.offload = {"op"};
          std::string name = std::string(to_string(policy)) + "/" + scheduler + "/" + w;
          if (w == "4sim") {
            c.options.platform = platform;
            c.options.platform_run_kernels = true;
            c.options.device_copy = copies[k % 3];
            name += "/" + std::string(to_string(c.options.device_copy));
          } else if (devices) {
            c.emulated = w == "1emu" ? 1 : 2;
            c.inline_lanes = k / 2 % 2;
          }
          c.name = name + (limit ? "/" + std::to_string(limit) + "B" : "") +
                   (c.inline_lanes ? "/inline" : "") + (c.options.offload.empty() ? "" : "/op");
          out.push_back(std::move(c));
        }
  return out;
}

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

// Selected configurations: CONVEYOR_DIFF_ONLY=<name> (exactly), CONVEYOR_DIFF_MATCH=<text> (names
// that contain it), else all; CONVEYOR_DIFF_LIST=1 prints "configuration <name>" lines and runs
// nothing.
TEST(DistributedDifferential, RandomGraphsAcrossRanksMatchASequentialRun) {
  const std::uint64_t seed = env_or("CONVEYOR_DIFF_SEED", 20261123);
  const std::uint64_t graphs = env_or("CONVEYOR_DIST_GRAPHS", 2);
  Codelet codelet("op");
  codelet.cpu(op).cuda(op);  // emulated and simulated devices run "cuda" code on host memory
  const char* only = std::getenv("CONVEYOR_DIFF_ONLY");
  const char* match = std::getenv("CONVEYOR_DIFF_MATCH");
  const bool all = !(only && *only) && !(match && *match);
  // Each rank writes its own platform file (into TMPDIR), removed at the end.
  const std::string platform = test::write_platform_file(test::switch_platform(4));
  const std::vector<Config> configs = configurations(platform);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (std::getenv("CONVEYOR_DIFF_LIST")) {
    if (rank == 0)
      for (const Config& c : configs) std::printf("configuration %s\n", c.name.c_str());
    std::filesystem::remove(platform);
    return;
  }
  std::mt19937_64 rng(seed);
  std::uint64_t ran = 0, messages = 0, device_configs = 0, device_copies = 0;
  for (const Config& c : configs) {
    const bool selected = all || (only && *only && c.name == only) ||
                          (match && *match && c.name.find(match) != std::string::npos);
    if (!selected) {
      for (std::uint64_t g = 0; g < graphs; ++g) rng();  // the same graphs for the ones asked for
      continue;
    }
    std::unique_ptr<Runtime> rt =
        test::make_emulated_runtime(c.options, c.emulated, c.inline_lanes);
    Distributed dist(*rt);
    for (std::uint64_t g = 0; g < graphs; ++g) {
      std::uint64_t graph_seed = rng();
      std::mt19937_64 graph_rng(graph_seed);
      SCOPED_TRACE("CONVEYOR_DIFF_SEED=" + std::to_string(seed) + " configuration " + c.name +
                   " graph " + std::to_string(g));
      run_graph(dist, graph_rng, codelet);
    }
    std::uint64_t sent = 0;
    for (const auto& s : dist.all_stats()) sent += s.messages_sent;
    const RuntimeStats s = rt->stats();
    ran += graphs;
    messages += sent;
    if (c.emulated > 0 || !c.options.platform.empty()) {
      ++device_configs;
      device_copies += s.h2d_copies;
    }
    if (std::getenv("CONVEYOR_DIFF_VERBOSE") && dist.rank() == 0)
      std::printf("%-44s %6llu messages; rank 0: %5llu h2d copies, %4llu evictions\n",
                  c.name.c_str(), static_cast<unsigned long long>(sent),
                  static_cast<unsigned long long>(s.h2d_copies),
                  static_cast<unsigned long long>(s.evictions));
  }
  std::filesystem::remove(platform);
  // The whole table (not a selection, whose few graphs may not show it): the graphs communicated,
  // and rank 0's devices ran tasks.
  if (all && ranks > 1) {
    EXPECT_GT(messages, ran) << "the graphs hardly communicated";
    if (rank == 0) EXPECT_GT(device_copies, device_configs) << "hardly any task ran on a device";
  }
}

}  // namespace
}  // namespace conveyor
