// Differential test of the runtime: thousands of random task graphs (random data, shapes, access
// modes, priorities, devices, schedulers and both coherence policies; device memory unlimited and
// room for a few buffers, with and without CPU workers, prefetch on and off, run-ahead on and off;
// emulated devices that complete work at once, on a thread of their own, or (with run-ahead) on a
// thread that runs an operation before earlier ones that do not share its blocks) run by the
// runtime, and the same tasks run one by one on the host; every final buffer must match exactly
// (integer kernels). Besides random tasks, graphs take the stencil's shape (a ring of items read by
// three tasks each) and the tile QR's (apps/qr/qr_graph.hpp's task flow over small tiles, tasks
// writing two buffers at once), in about an eighth and a quarter of the graphs.
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
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/simulated_platform.hpp"
#include "unit/runtime/step_codelet.hpp"

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

constexpr unsigned kMaxReads = test::kStepReads;  // op0 .. op3: the halo ops read three items

struct OpArgs {
  u32 read_write;  // 1: the target is ReadWrite, 0: Write
  u32 salt;
};

// t[e] = (rw ? 3 t[e] : 0) + salt + sum_j (j + 1) r_j[e mod count_j]: one step (step_codelet.hpp)
// on buffer 0 from the others.
test::Step op_step(OpArgs a, std::size_t reads) {
  std::vector<unsigned> in;
  for (unsigned j = 1; j <= reads; ++j) in.push_back(j);
  return test::make_step(a.salt, 0, a.read_write, in);
}

template <void (*Run)(const TaskContext&, const test::Step&)>
void op(const TaskContext& t) {
  Run(t, op_step(t.args<OpArgs>(), t.size() - 1));
}

Codelet make_op(const std::string& name) {
  Codelet c(name);
  c.cpu(op<test::step_on_host>).cuda(op<test::step_on_cuda>);
  c.opencl({.source = test::kStepSource, .kernel = "op"}, op<test::step_on_opencl>);
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
  bool reorder = false;       // emulated lanes that keep only the order the data needs
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
            // Run-ahead on in every other pair of configurations (independent of prefetch; no
            // draw from rng either): the seeds are split between on and off.
            c.options.run_ahead = out.size() / 2 % 2 == 0 ? 4 : 0;
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
            // The other emulated lanes, with run-ahead, run an operation before earlier ones that
            // do not share its blocks: a task enqueued behind its producer without waiting for it
            // would read stale data.
            c.reorder = c.emulated > 0 && !c.inline_lanes && c.options.run_ahead > 0;
            // The QR's updates on the devices, its panel on the CPUs (the app's split).
            c.options.offload = {"op1", "op2", "op3", "gemqrt", "tpmqrt"};
            if (std::string(scheduler) != "offload" && rng() % 2) c.options.offload.clear();
            std::string where = devices == 4 ? "cuda:0"
                                : devices == 3
                                    ? "4sim/" + std::string(to_string(c.options.device_copy))
                                    : (c.options.devices.empty() ? "" : "opencl:0+") +
                                          std::to_string(c.emulated) + "emu";
            c.name = std::string(to_string(policy)) + "/" + scheduler + "/" + where +
                     (cpus ? "" : "/no-cpu") + (limit ? "/" + std::to_string(limit) + "B" : "") +
                     (c.options.early_write_back ? "/early" : "") +
                     (c.inline_lanes ? "/inline" : "") + (c.reorder ? "/reorder" : "") +
                     (c.options.prefetch ? "/prefetch" : "") +
                     (c.options.run_ahead ? "/ahead" : "");
            out.push_back(std::move(c));
          }
  return out;
}

// The shapes a graph had (the test counts them, so that a shape cannot go missing unnoticed).
struct Shapes {
  bool qr = false, stencil = false;
  std::size_t device_homes = 0;  // vectors registered as emu:0's memory
};

// One random graph: runs it on `rt` and on the host, compares. `qr`: the tile QR's codelets,
// indexed by apps::qr::Kernel.
Shapes run_graph(Runtime& rt, std::mt19937_64& rng, const std::vector<Codelet>& ops,
                 const Codelet& peek, const std::vector<Codelet>& qr) {
  Shapes shapes;
  auto uniform = [&](std::size_t lo, std::size_t hi) { return lo + rng() % (hi - lo + 1); };
  struct Item {
    std::vector<u32>* storage;
    std::size_t offset, rows, cols, ld;
    std::vector<u32> expected;  // logical elements
    bool device_home = false;   // registered as emu:0's memory (register_device_vector)
  };
  std::vector<std::vector<u32>> storage;
  storage.reserve(16);  // never more: the items point into it
  std::vector<Item> items;
  std::vector<Data> data;
  // A new item: `rows` x `cols` at `offset` of the last storage, registered as a matrix.
  auto add_tile = [&](std::size_t offset, std::size_t rows, std::size_t cols, std::size_t ld,
                      const std::string& name) {
    Item it{&storage.back(), offset, rows, cols, ld, {}};
    for (std::size_t e = 0; e < rows * cols; ++e)
      it.expected.push_back(storage.back()[offset + at(e, rows, ld)]);
    items.push_back(std::move(it));
    data.push_back(rt.register_matrix(storage.back().data() + offset, rows, cols, ld, name));
    return items.size() - 1;
  };
  auto random_storage = [&](std::size_t n) {
    storage.emplace_back(n);
    for (auto& x : storage.back()) x = static_cast<u32>(rng());
  };

  // A third of the vectors have emu:0's memory as their home where the runtime allows it (its
  // emulated devices take the test's own buffers as device memory): used in place there, the
  // latest values back in them after wait_all and unregister, checked as host data is.
  std::vector<std::string> workers = rt.workers();
  const bool device_homes =
      rt.options().coherence == Coherence::Coherent &&
      std::find(workers.begin(), workers.end(), "emu:0 worker") != workers.end();
  std::size_t vectors = uniform(1, 6);
  for (std::size_t i = 0; i < vectors; ++i) {
    std::size_t n = uniform(1, 300);
    const bool on_device = device_homes && rng() % 3 == 0;
    random_storage(n);
    items.push_back({&storage.back(), 0, n, 1, n, storage.back(), on_device});
    const std::string name = "v" + std::to_string(i);
    data.push_back(on_device ? rt.register_device_vector("emu:0", storage.back().data(), n, name)
                             : rt.register_vector(storage.back().data(), n, name));
    shapes.device_homes += on_device;
  }
  Data matrix;
  TileGrid tiles;
  if (rng() % 3 == 0) {  // a matrix with padding, partitioned into tiles
    std::size_t tr = uniform(1, 8), tc = uniform(1, 5), gr = uniform(1, 3), gc = uniform(1, 3);
    std::size_t pad = uniform(0, 3), mrows = tr * gr, mcols = tc * gc;
    std::size_t ld = mrows + pad;
    random_storage(ld * mcols);
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

  // The host copies of items, in the order given, as the steps' buffers.
  auto views = [&](const std::vector<std::size_t>& which) {
    std::vector<test::View> v;
    for (std::size_t i : which) {
      std::vector<u32>& e = items[i].expected;
      v.push_back({e.data(), e.size(), 1, e.size()});
    }
    return v;
  };
  // A task of `codelet` running `steps` over `which` (their accesses in `modes`) on the runtime,
  // then the same steps on the host copies, at once.
  auto submit_steps = [&](const Codelet& codelet, const std::vector<std::size_t>& which,
                          const std::vector<Access>& modes, const test::Steps& steps,
                          std::span<const std::byte> args, int priority) {
    std::vector<DataAccess> acc;
    for (std::size_t j = 0; j < which.size(); ++j) acc.push_back({data[which[j]], modes[j]});
    rt.submit(codelet, acc, priority, {}, args);
    test::apply_steps(views(which), steps);
  };
  // op on the runtime (out written, `reads` read): op<reads.size()>'s one step.
  auto submit_op = [&](std::size_t out_index, const std::vector<std::size_t>& reads, OpArgs args,
                       int priority) {
    std::vector<std::size_t> which{out_index};
    which.insert(which.end(), reads.begin(), reads.end());
    std::vector<Access> modes(which.size(), Access::Read);
    modes[0] = args.read_write ? Access::ReadWrite : Access::Write;
    test::Steps steps;
    steps.count = 1;
    steps.step[0] = op_step(args, reads.size());
    submit_steps(ops[reads.size()], which, modes, steps, std::as_bytes(std::span(&args, 1)),
                 priority);
  };

  // Sometimes the tile QR's shape (apps/qr/qr_graph.hpp, with step_codelet.hpp's programs standing
  // in for its kernels): the tiles of an nt x nt matrix with padding and a ragged last tile, each
  // registered on its own as the app does, a T tile for each tile on and below the diagonal (ib
  // rows, in a matrix of its own with padding) and a copy of each diagonal tile's reflectors; every
  // task reads and writes several small tiles (tpmqrt two at once), the panel's diagonal tile is
  // rewritten by a chain of tpqrt, and the trailing tiles by a chain of updates per step. Tiles of
  // 6 x 6 elements or less: a task's four buffers fit the small device memory many times over. The
  // tiles join the items that the stencil and the random tasks below use.
  struct QrTask {
    const Codelet* codelet;
    std::vector<std::size_t> which;
    std::vector<Access> modes;
    test::Steps steps;
    int priority;
  };
  std::vector<QrTask> qr_graph;  // submitted once every item is registered
  if (rng() % 4 == 0) {
    shapes.qr = true;
    const int nt = static_cast<int>(uniform(2, 4));
    const std::size_t b = uniform(1, 6), last = uniform(1, b), ib = uniform(1, b);
    auto width = [&](int i) { return i + 1 < nt ? b : last; };
    const std::size_t n = (nt - 1) * b + last, ld = n + uniform(0, 2), tld = ib + uniform(0, 1);
    auto name = [](const char* what, int i, int j) {
      return std::string(what) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
    };
    std::vector<std::size_t> a(nt * nt), t(nt * nt), v(nt);
    random_storage(ld * n);
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nt; ++i)
        a[i + j * nt] = add_tile(i * b + j * b * ld, width(i), width(j), ld, name("A", i, j));
    random_storage(tld * b * nt * nt);  // T_ik in slot (i, k), b columns each
    for (int k = 0; k < nt; ++k)
      for (int i = k; i < nt; ++i)
        t[i + k * nt] = add_tile((i + k * nt) * tld * b, ib, width(k), tld, name("T", i, k));
    random_storage(nt * b * b);  // V_k in slot k, contiguous
    for (int k = 0; k < nt; ++k)
      v[k] = add_tile(k * b * b, width(k), width(k), width(k), name("V", k, k));
    for (const test::QrTask& task : test::qr_tasks(nt, rng)) {
      qr_graph.push_back({&qr[static_cast<int>(task.kernel)], {}, {}, task.steps, task.priority});
      for (const test::QrAccess& x : task.accesses) {
        qr_graph.back().which.push_back(x.what == test::QrData::Tile     ? a[x.i + x.j * nt]
                                        : x.what == test::QrData::Factor ? t[x.i + x.j * nt]
                                                                         : v[x.i]);
        qr_graph.back().modes.push_back(x.mode);
      }
    }
  }
  // Every element of the storage that no item covers (padding, unused T columns) stays as it was.
  const std::vector<std::vector<u32>> storage_before = storage;
  for (const QrTask& task : qr_graph)
    submit_steps(*task.codelet, task.which, task.modes, task.steps, task.steps.bytes(),
                 task.priority);

  // `host`: where the host copy is, when not in the item's storage (a device home's, acquired).
  auto check = [&](std::size_t i, const std::string& when, const u32* host = nullptr) {
    const Item& it = items[i];
    for (std::size_t e = 0; e < it.expected.size(); ++e) {
      u32 got =
          host ? host[at(e, it.rows, it.rows)] : (*it.storage)[it.offset + at(e, it.rows, it.ld)];
      if (got != it.expected[e]) {
        ADD_FAILURE() << when << ": data " << i << " element " << e << " is " << got
                      << ", expected " << it.expected[e];
        return false;
      }
    }
    return true;
  };

  // Sometimes the stencil's shape next: two sweeps over a ring of items, each task writing its
  // item of the other ring from its own and its two neighbours' (each item read by three tasks,
  // its halo by two), the rings swapping between sweeps.
  // Only items a quarter of the small device memory or less: a task's four buffers must fit there
  // (a task that cannot fit fails, by design, and this test runs graphs that succeed).
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].expected.size() * sizeof(u32) <= kSmallDeviceMemory / (kMaxReads + 1))
      order.push_back(i);
  if (order.size() >= 6 && rng() % 4 == 0) {
    shapes.stencil = true;
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
      if (!check(i, "acquire", items[i].device_home ? h.as<u32>() : nullptr)) return shapes;
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
      if (!check(i, "after wait_all")) return shapes;
  }
  if (matrix.registered()) rt.unpartition(tiles);
  for (auto& d : data)
    if (d.registered()) rt.unregister(d);
  if (matrix.registered()) rt.unregister(matrix);
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!check(i, "after unregister")) return shapes;
  std::vector<std::vector<bool>> covered(storage.size());
  for (std::size_t s = 0; s < storage.size(); ++s) covered[s].resize(storage[s].size());
  for (const Item& it : items)
    for (std::size_t e = 0; e < it.expected.size(); ++e)
      covered[it.storage - storage.data()][it.offset + at(e, it.rows, it.ld)] = true;
  for (std::size_t s = 0; s < storage.size(); ++s)
    for (std::size_t e = 0; e < storage[s].size(); ++e)
      if (!covered[s][e] && storage[s][e] != storage_before[s][e]) {
        ADD_FAILURE() << "storage " << s << " element " << e << " (no data's) changed";
        return shapes;
      }
  return shapes;
}

TEST(RuntimeDifferential, RandomGraphsMatchASequentialHostRun) {
  const std::uint64_t seed = env_or("CONVEYOR_DIFF_SEED", 20261122);
  const std::uint64_t graphs = env_or("CONVEYOR_DIFF_GRAPHS", 4000);
  std::mt19937_64 rng(seed);
  std::vector<Codelet> ops{make_op("op0"), make_op("op1"), make_op("op2"), make_op("op3")};
  Codelet peek = make_peek();
  std::atomic<std::uint64_t> qr_on_device{0};  // QR tasks run on a device, every configuration
  std::vector<Codelet> qr;
  for (auto k : {apps::qr::Kernel::Geqrt, apps::qr::Kernel::Gemqrt, apps::qr::Kernel::Tpqrt,
                 apps::qr::Kernel::Tpmqrt})
    qr.push_back(test::steps_codelet(test::qr_kernel_name(k), &qr_on_device));
  const std::string platform = test::write_platform_file(test::switch_platform(4));
  std::vector<Config> configs = configurations(rng, platform);
  std::uint64_t per_config = std::max<std::uint64_t>(1, graphs / configs.size());
  std::uint64_t limited = 0, evictions = 0, write_backs = 0, prefetches = 0;
  // Graphs run, those with each shape, and QR tasks run on a device with little memory.
  std::uint64_t graphs_run = 0, qr_graphs = 0, stencil_graphs = 0, qr_on_small_device = 0;
  std::uint64_t device_homes = 0;
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
    const std::uint64_t qr_on_device_before = qr_on_device.load();
    std::unique_ptr<Runtime> rt =
        test::make_emulated_runtime(c.options, c.emulated, c.inline_lanes, c.reorder,
                                    /*adopt_any_memory=*/true);
    for (std::uint64_t g = 0; g < per_config; ++g) {
      std::uint64_t graph_seed = rng();
      std::mt19937_64 graph_rng(graph_seed);
      SCOPED_TRACE("CONVEYOR_DIFF_SEED=" + std::to_string(seed) + " configuration " + c.name +
                   " graph " + std::to_string(g) + " (graph seed " + std::to_string(graph_seed) +
                   ")");
      Shapes shapes = run_graph(*rt, graph_rng, ops, peek, qr);
      if (HasFailure()) return;
      ++graphs_run;
      qr_graphs += shapes.qr;
      stencil_graphs += shapes.stencil;
      device_homes += shapes.device_homes;
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
      qr_on_small_device += qr_on_device.load() - qr_on_device_before;
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
  // The QR's shape is drawn for about a quarter of the graphs, the stencil's for an eighth: 200
  // graphs without one have odds below 1e-11 (and CONVEYOR_DIFF_SEED makes a run repeatable). With
  // little memory, QR tasks must have run on a device (their tiles evicted and written back among
  // the other graphs' data).
  if (graphs_run >= 200) {
    EXPECT_GT(qr_graphs, 0u) << "no graph had the QR's shape";
    EXPECT_GT(stencil_graphs, 0u) << "no graph had the stencil's shape";
    if (all) EXPECT_GT(device_homes, 0u) << "no vector had a device as its home";
  }
  if (limited >= 8 && per_config >= 8)
    EXPECT_GT(qr_on_small_device, 0u) << "no QR task ran on a device with little memory";
  if (std::getenv("CONVEYOR_DIFF_VERBOSE"))
    std::printf(
        "small device memory: %llu evictions, %llu write-backs, %llu QR tasks on a device; %llu "
        "prefetches; %llu graphs, %llu with the QR's shape, %llu with the stencil's; %llu vectors "
        "homed on emu:0\n",
        static_cast<unsigned long long>(evictions), static_cast<unsigned long long>(write_backs),
        static_cast<unsigned long long>(qr_on_small_device),
        static_cast<unsigned long long>(prefetches), static_cast<unsigned long long>(graphs_run),
        static_cast<unsigned long long>(qr_graphs), static_cast<unsigned long long>(stencil_graphs),
        static_cast<unsigned long long>(device_homes));
}

}  // namespace
}  // namespace conveyor
