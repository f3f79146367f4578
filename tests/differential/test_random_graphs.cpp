// Differential test of the runtime: thousands of random task graphs (random data, shapes, access
// modes, priorities, devices, schedulers and both coherence policies; device memory unlimited and
// room for a few buffers, with and without CPU workers, prefetch on and off; emulated devices that
// complete work at once or on a thread of their own) run by the runtime, and the same tasks run
// one by one on the host; every final buffer must match exactly (integer kernels).
//
// Where a CUDA GPU is present, its configurations run the kernels on it ("cuda:0": alone, and
// beside CPU workers, with and without a device-memory limit).
//
// Seedable: CONVEYOR_DIFF_SEED=<n> repeats a run, CONVEYOR_DIFF_GRAPHS=<n> sets the number of
// graphs (default 4000). A failure prints the seed, the configuration and the graph;
// CONVEYOR_DIFF_ONLY=<configuration> then runs that configuration alone, on the same graphs, and
// CONVEYOR_DIFF_MATCH=<text> runs the configurations whose names contain it (say "cuda:0").
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"
#include "unit/runtime/device_codelets.hpp"  // OpenCL calls looked up in the process
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/simulated_platform.hpp"

namespace conveyor {
namespace {

using u32 = std::uint32_t;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Element e of a buffer with `rows` rows and leading dimension `ld`.
inline std::size_t at(std::size_t e, std::size_t rows, std::size_t ld) {
  return e % rows + e / rows * ld;
}

constexpr unsigned kMaxReads = 3;  // op0 .. op3: the halo ops read a tile and its two neighbours

struct OpArgs {
  u32 read_write;  // 1: the target is ReadWrite, 0: Write
  u32 salt;
};

// t[e] = (rw ? 3 t[e] : 0) + salt + sum_j (j + 1) r_j[e mod count_j]
void op_on_host(const TaskContext& t) {
  OpArgs a = t.args<OpArgs>();
  const Buffer& out = t.buffer(0);
  std::size_t count = out.rows * out.cols;
  u32* o = t.data<u32>(0);
  for (std::size_t e = 0; e < count; ++e) {
    u32 acc = (a.read_write ? 3u * o[at(e, out.rows, out.ld)] : 0u) + a.salt;
    for (std::size_t j = 1; j < t.size(); ++j) {
      const Buffer& in = t.buffer(j);
      std::size_t n = in.rows * in.cols;
      acc += static_cast<u32>(j) * t.data<u32>(j)[at(e % n, in.rows, in.ld)];
    }
    o[at(e, out.rows, out.ld)] = acc;
  }
}

const char* kSource = R"CL(
#define AT(e, rows, ld) ((e) % (rows) + (e) / (rows) * (ld))
__kernel void op(__global uint* o, uint orows, uint ocount, uint rw, uint salt,
                 __global const uint* r1, uint r1rows, uint r1count,
                 __global const uint* r2, uint r2rows, uint r2count,
                 __global const uint* r3, uint r3rows, uint r3count, uint reads) {
  uint e = get_global_id(0);
  if (e >= ocount) return;
  uint acc = (rw ? 3u * o[e] : 0u) + salt;
  if (reads > 0) acc += 1u * r1[e % r1count];
  if (reads > 1) acc += 2u * r2[e % r2count];
  if (reads > 2) acc += 3u * r3[e % r3count];
  o[e] = acc;
}
)CL";

void op_on_opencl(const TaskContext& t) {
  OpArgs a = t.args<OpArgs>();
  auto k = static_cast<cl_kernel>(t.opencl_kernel());
  auto set = [&](cl_uint i, const auto& v) { test::set_arg(k, i, sizeof v, &v); };
  const Buffer& out = t.buffer(0);
  u32 count = static_cast<u32>(out.rows * out.cols);
  set(0, t.opencl_mem(0));
  set(1, static_cast<u32>(out.rows));
  set(2, count);
  set(3, a.read_write);
  set(4, a.salt);
  u32 reads = static_cast<u32>(t.size() - 1);
  for (u32 j = 1; j <= kMaxReads; ++j) {
    std::size_t b = j <= reads ? j : 0;  // unused inputs point at the output (never read)
    const Buffer& in = t.buffer(b);
    set(5 + 3 * (j - 1), t.opencl_mem(b));
    set(6 + 3 * (j - 1), static_cast<u32>(in.rows));
    set(7 + 3 * (j - 1), static_cast<u32>(in.rows * in.cols));
  }
  set(14, reads);
  // A fixed work-group size: PoCL compiles one kernel variant per local size it picks, and random
  // lengths would make it pick many.
  std::size_t local = 16;
  test::enqueue_1d(t, (count + local - 1) / local * local, local);
}

void op_on_cuda(const TaskContext& t) {
  if (!test::cuda::real(t.device())) return op_on_host(t);  // emulated: host memory
  OpArgs a = t.args<OpArgs>();
  const Buffer& out = t.buffer(0);
  test::cuda::DiffOp op{};
  op.out = t.data<u32>(0);
  op.count = static_cast<u32>(out.rows * out.cols);
  op.read_write = a.read_write;
  op.salt = a.salt;
  op.reads = static_cast<u32>(t.size() - 1);
  for (std::size_t j = 1; j < t.size(); ++j) {
    op.in[j - 1] = t.data<u32>(j);
    op.in_count[j - 1] = static_cast<u32>(t.buffer(j).rows * t.buffer(j).cols);
  }
  test::cuda::diff_op(op, t.cuda_stream());
}

Codelet make_op(const std::string& name) {
  Codelet c(name);
  c.cpu(op_on_host).cuda(op_on_cuda);
  c.opencl({.source = kSource, .kernel = "op"}, op_on_opencl);
  return c;
}

Codelet make_peek() {  // reads only: exercises copies without changing anything
  Codelet c("peek");
  auto nothing = [](const TaskContext&) {};
  c.cpu(nothing).cuda(nothing).opencl({}, nothing);
  return c;
}

struct Config {
  std::string name;
  RuntimeOptions options;
  int emulated = 0;
  bool inline_lanes = false;  // emulated lanes that complete at once on the enqueuing thread
};

bool have_device(const std::string& id) {
  for (const auto& d : all_devices())
    if (d->info().id == id) return true;
  return false;
}

// Device memory small enough for a few of the graphs' buffers (vectors up to 1200 bytes, a task
// uses at most three): eviction, write-back and waiting for room in most graphs.
constexpr std::uint64_t kSmallDeviceMemory = 4096;

std::vector<Config> configurations(std::mt19937_64& rng, const std::string& platform) {
  std::vector<Config> out;
  const bool opencl = have_device("opencl:0"), cuda = have_device("cuda:0");
  for (std::uint64_t limit : {std::uint64_t{0}, kSmallDeviceMemory})
    for (int cpus : {2, 0})
      for (Coherence policy : {Coherence::Coherent, Coherence::Naive})
        for (const char* scheduler :
             {"eager", "round-robin", "offload", "locality", "model", "model-ready"})
          for (int devices = 0; devices < 5; ++devices) {
            if (devices == 4 && !cuda) continue;  // before any draw: the graphs stay the seed's
            // CPU workers off: with small memory only, but for the GPU alone
            if (limit == 0 && cpus == 0 && devices != 4) continue;
            Config c;
            c.options.cpus = cpus;
            c.options.pin = false;
            c.options.coherence = policy;
            c.options.scheduler = scheduler;
            c.options.device_memory_limit = limit;
            c.options.device_tasks_in_flight = 1 + static_cast<int>(rng() % 4);
            c.options.device_copy = rng() % 2 ? DeviceCopy::PeerCopy : DeviceCopy::HostStaged;
            c.options.early_write_back = rng() % 2;
            // Prefetch on in every other configuration (without drawing from rng, so that the
            // graphs stay those of the seed).
            c.options.prefetch = out.size() % 2 == 0;
            if (devices == 0) c.emulated = 2;  // two devices: device-to-device movement
            if (devices == 1) {
              if (!opencl) continue;
              c.options.devices = {"opencl:0"};
            }
            if (devices == 2) {
              c.emulated = 1;
              if (opencl) c.options.devices = {"opencl:0"};
            }
            if (devices == 3) {  // a simulated 4-device platform that runs the kernels
              c.options.platform = platform;
              c.options.platform_run_kernels = true;
              const DeviceCopy copies[] = {DeviceCopy::HostStaged, DeviceCopy::PeerCopy,
                                           DeviceCopy::PeerDirect};
              c.options.device_copy = copies[rng() % 3];
            }
            if (devices == 4) c.options.devices = {"cuda:0"};  // the kernels on the GPU
            // Half of the emulated devices complete work at once, as PoCL may: completions then
            // run on the driver thread inside the runtime's calls.
            c.inline_lanes = c.emulated > 0 && rng() % 2;
            c.options.offload = {"op1", "op2", "op3"};
            if (std::string(scheduler) != "offload" && rng() % 2) c.options.offload.clear();
            std::string where = devices == 4 ? "cuda:0"
                                : devices == 3
                                    ? "4sim/" + std::string(to_string(c.options.device_copy))
                                    : (c.options.devices.empty() ? "" : "opencl:0+") +
                                          std::to_string(c.emulated) + "emu";
            c.name = std::string(to_string(policy)) + "/" + scheduler + "/" + where +
                     (cpus ? "" : "/no-cpu") + (limit ? "/" + std::to_string(limit) + "B" : "") +
                     (c.options.early_write_back ? "/early" : "") +
                     (c.inline_lanes ? "/inline" : "") + (c.options.prefetch ? "/prefetch" : "");
            out.push_back(std::move(c));
          }
  return out;
}

// One random graph: runs it on `rt` and on the host, compares.
void run_graph(Runtime& rt, std::mt19937_64& rng, const std::vector<Codelet>& ops,
               const Codelet& peek) {
  auto uniform = [&](std::size_t lo, std::size_t hi) { return lo + rng() % (hi - lo + 1); };
  struct Item {
    std::vector<u32>* storage;
    std::size_t offset, rows, cols, ld;
    std::vector<u32> expected;  // logical elements
  };
  std::vector<std::vector<u32>> storage;
  storage.reserve(16);
  std::vector<Item> items;
  std::vector<Data> data;

  std::size_t vectors = uniform(1, 6);
  for (std::size_t i = 0; i < vectors; ++i) {
    std::size_t n = uniform(1, 300);
    storage.emplace_back(n);
    for (auto& x : storage.back()) x = static_cast<u32>(rng());
    items.push_back({&storage.back(), 0, n, 1, n, storage.back()});
    data.push_back(rt.register_vector(storage.back().data(), n, "v" + std::to_string(i)));
  }
  Data matrix;
  TileGrid tiles;
  std::size_t pad = 0, mrows = 0, mcols = 0;
  if (rng() % 3 == 0) {  // a matrix with padding, partitioned into tiles
    std::size_t tr = uniform(1, 8), tc = uniform(1, 5), gr = uniform(1, 3), gc = uniform(1, 3);
    pad = uniform(0, 3);
    mrows = tr * gr;
    mcols = tc * gc;
    std::size_t ld = mrows + pad;
    storage.emplace_back(ld * mcols);
    for (auto& x : storage.back()) x = static_cast<u32>(rng());
    matrix = rt.register_matrix(storage.back().data(), mrows, mcols, ld, "m");
    tiles = rt.partition(matrix, tr, tc);
    for (std::size_t j = 0; j < gc; ++j)
      for (std::size_t i = 0; i < gr; ++i) {
        Item it{&storage.back(), i * tr + j * tc * ld, tr, tc, ld, {}};
        for (std::size_t e = 0; e < tr * tc; ++e)
          it.expected.push_back(storage.back()[it.offset + at(e, tr, ld)]);
        items.push_back(std::move(it));
        data.push_back(tiles.at(i, j));
      }
  }
  const std::vector<u32> matrix_before = matrix.registered() ? storage.back() : std::vector<u32>{};

  auto check = [&](std::size_t i, const std::string& when) {
    const Item& it = items[i];
    for (std::size_t e = 0; e < it.expected.size(); ++e) {
      u32 got = (*it.storage)[it.offset + at(e, it.rows, it.ld)];
      if (got != it.expected[e]) {
        ADD_FAILURE() << when << ": data " << i << " element " << e << " is " << got
                      << ", expected " << it.expected[e];
        return false;
      }
    }
    return true;
  };

  // op on the runtime (out written, `reads` read), then the same on the host copy, at once.
  auto submit_op = [&](std::size_t out_index, const std::vector<std::size_t>& reads, OpArgs args,
                       int priority) {
    std::vector<DataAccess> acc{
        {data[out_index], args.read_write ? Access::ReadWrite : Access::Write}};
    for (std::size_t r : reads) acc.push_back({data[r], Access::Read});
    rt.submit(ops[reads.size()], acc, priority, {}, std::as_bytes(std::span(&args, 1)));
    Item& out = items[out_index];
    for (std::size_t e = 0; e < out.expected.size(); ++e) {
      u32 v = (args.read_write ? 3u * out.expected[e] : 0u) + args.salt;
      for (std::size_t j = 1; j <= reads.size(); ++j) {
        const Item& in = items[reads[j - 1]];
        v += static_cast<u32>(j) * in.expected[e % in.expected.size()];
      }
      out.expected[e] = v;
    }
  };

  // Sometimes the stencil's shape first: two sweeps over a ring of items, each task writing its
  // item of the other ring from its own and its two neighbours' (each item read by three tasks,
  // its halo by two), the rings swapping between sweeps.
  // Only items a quarter of the small device memory or less: a task's four buffers must fit there
  // (a task that cannot fit fails, by design, and this test runs graphs that succeed).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].expected.size() * sizeof(u32) <= kSmallDeviceMemory / (kMaxReads + 1))
      order.push_back(i);
  if (order.size() >= 6 && rng() % 4 == 0) {
    std::size_t m = uniform(3, order.size() / 2);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::size_t> from(order.begin(), order.begin() + m);
    std::vector<std::size_t> to(order.begin() + m, order.begin() + 2 * m);
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (std::size_t k = 0; k < m; ++k) {
        OpArgs args{static_cast<u32>(rng() % 2), static_cast<u32>(rng())};
        submit_op(to[k], {from[(k + m - 1) % m], from[k], from[(k + 1) % m]}, args, 0);
      }
      std::swap(from, to);
    }
  }

  std::size_t tasks = uniform(1, 40);
  for (std::size_t k = 0; k < tasks; ++k) {
    if (rng() % 25 == 0) {  // host access in the middle of the graph
      std::size_t i = uniform(0, items.size() - 1);
      HostAccess h = rt.acquire(data[i], Access::Read);
      if (!check(i, "acquire")) return;
      continue;
    }
    std::vector<std::size_t> pick(items.size());
    for (std::size_t i = 0; i < pick.size(); ++i) pick[i] = i;
    std::shuffle(pick.begin(), pick.end(), rng);
    int priority = static_cast<int>(rng() % 3);
    if (rng() % 6 == 0) {
      std::size_t n = uniform(1, std::min<std::size_t>(3, items.size()));
      std::vector<DataAccess> acc;
      for (std::size_t j = 0; j < n; ++j) acc.push_back({data[pick[j]], Access::Read});
      rt.submit(peek, acc, priority);
      continue;
    }
    std::size_t reads = uniform(0, std::min<std::size_t>(2, items.size() - 1));
    OpArgs args{static_cast<u32>(rng() % 2), static_cast<u32>(rng())};
    submit_op(pick[0], std::vector<std::size_t>(pick.begin() + 1, pick.begin() + 1 + reads), args,
              priority);
  }
  if (rng() % 2) {
    rt.wait_all();
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!check(i, "after wait_all")) return;
  }
  if (matrix.registered()) {
    rt.unpartition(tiles);
    // Padding rows are never touched.
    for (std::size_t j = 0; j < mcols; ++j)
      for (std::size_t r = mrows; r < mrows + pad; ++r)
        ASSERT_EQ(storage.back()[r + j * (mrows + pad)], matrix_before[r + j * (mrows + pad)]);
  }
  for (auto& d : data)
    if (d.registered()) rt.unregister(d);
  if (matrix.registered()) rt.unregister(matrix);
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!check(i, "after unregister")) return;
}

TEST(RuntimeDifferential, RandomGraphsMatchASequentialHostRun) {
  const std::uint64_t seed = env_or("CONVEYOR_DIFF_SEED", 20261122);
  const std::uint64_t graphs = env_or("CONVEYOR_DIFF_GRAPHS", 4000);
  std::mt19937_64 rng(seed);
  std::vector<Codelet> ops{make_op("op0"), make_op("op1"), make_op("op2"), make_op("op3")};
  Codelet peek = make_peek();
  const std::string platform = test::write_platform_file(test::switch_platform(4));
  std::vector<Config> configs = configurations(rng, platform);
  std::uint64_t per_config = std::max<std::uint64_t>(1, graphs / configs.size());
  std::uint64_t limited = 0, evictions = 0, write_backs = 0, prefetches = 0;
  const char* only = std::getenv("CONVEYOR_DIFF_ONLY");
  const char* match = std::getenv("CONVEYOR_DIFF_MATCH");
  const bool all = !(only && *only) && !(match && *match);
  std::size_t selected_configs = 0;
  for (const Config& c : configs) {
    bool selected = (only && *only && c.name == only) ||
                    (match && *match && c.name.find(match) != std::string::npos) || all;
    if (!selected) {  // the same graphs for the ones asked for
      for (std::uint64_t g = 0; g < per_config; ++g) rng();
      continue;
    }
    ++selected_configs;
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Runtime> rt =
        test::make_emulated_runtime(c.options, c.emulated, c.inline_lanes);
    for (std::uint64_t g = 0; g < per_config; ++g) {
      std::uint64_t graph_seed = rng();
      std::mt19937_64 graph_rng(graph_seed);
      SCOPED_TRACE("CONVEYOR_DIFF_SEED=" + std::to_string(seed) + " configuration " + c.name +
                   " graph " + std::to_string(g) + " (graph seed " + std::to_string(graph_seed) +
                   ")");
      run_graph(*rt, graph_rng, ops, peek);
      if (HasFailure()) return;
    }
    RuntimeStats s = rt->stats();
    prefetches += s.prefetches;
    if (!c.options.prefetch) EXPECT_EQ(s.prefetches, 0u) << c.name;
    if (std::getenv("CONVEYOR_DIFF_VERBOSE"))
      std::printf("%-40s %6.2f s, %llu tasks\n", c.name.c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                  static_cast<unsigned long long>(s.tasks));
    // Enough graphs offload some task (one graph may hold none of the offloaded codelets); not
    // h2d_copies, since a few graphs whose device tasks only write copy nothing in.
    if (c.emulated + c.options.devices.size() + c.options.platform.size() > 0 &&
        c.options.scheduler == "offload" && per_config >= 8) {
      std::uint64_t device_tasks = 0;
      for (const WorkerStats& w : s.workers)
        if (w.name.rfind("cpu", 0) != 0) device_tasks += w.tasks;
      EXPECT_GT(device_tasks, 0u) << c.name << ": no task ran on a device";
    }
    if (c.options.device_memory_limit) {
      ++limited;
      evictions += s.evictions;
      write_backs += s.write_backs;
      EXPECT_LE(s.peak_device_bytes, c.options.device_memory_limit) << c.name;
    }
  }
  ASSERT_GT(selected_configs, 0u)
      << "no configuration matches CONVEYOR_DIFF_ONLY / _MATCH (a device "
         "named there is not present?)";
  // The small-memory configurations must really have evicted and written back. (Whether a
  // prefetch happens depends on the timing of the lanes, so some seeds have none: that prefetches
  // happen is tested in test_prefetch.cpp.) A handful of configurations with a few graphs each is
  // enough for one; a run with one or two graphs per configuration (a GPU check's many seeds) may
  // have none.
  if (limited >= 8 && per_config >= 8) EXPECT_GT(evictions, 0u);
  if (all && per_config >= 8) EXPECT_GT(write_backs, 0u);
  if (std::getenv("CONVEYOR_DIFF_VERBOSE"))
    std::printf("small device memory: %llu evictions, %llu write-backs; %llu prefetches\n",
                static_cast<unsigned long long>(evictions),
                static_cast<unsigned long long>(write_backs),
                static_cast<unsigned long long>(prefetches));
}

}  // namespace
}  // namespace conveyor
