// Device memory as a cache of the host (issue 11): graphs larger than the device run, evicted
// Modified data is written home exactly once, a task too large for the device fails alone and
// loses nothing, and two tasks that each fill the device do not keep evicting each other; the tile
// QR's and the stencil's task graphs (many small read-write tiles; halos read by neighbours)
// through room for a few tiles give the sequential result exactly. Run on every device present;
// and on emulated devices that complete work at once.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/device_codelets.hpp"
#include "unit/runtime/emulated_device.hpp"
#include "unit/runtime/runtime_devices.hpp"
#include "unit/runtime/simulated_platform.hpp"
#include "unit/runtime/step_codelet.hpp"

namespace conveyor {
namespace {

class DeviceMemoryCache : public test::RuntimePerDevice {
 protected:
  /// Everything on the device; room for `buffers` vectors of `n` ints.
  RuntimeOptions options(std::size_t buffers, std::size_t n, int in_flight = 4) const {
    RuntimeOptions o;
    o.cpus = 1;
    o.pin = false;
    o.scheduler = "offload";
    o.offload = {"add_one", "accumulate"};
    o.device_tasks_in_flight = in_flight;
    o.device_memory_limit = buffers * n * sizeof(int);
    return o;
  }
};

// 12 vectors through a device with room for 4: the failing case, now a cache.
TEST_P(DeviceMemoryCache, GraphLargerThanTheDeviceRuns) {
  constexpr std::size_t n = 256, vectors = 12;
  auto rt = make_runtime(options(4, n));
  std::vector<std::vector<int>> v(vectors, std::vector<int>(n));
  std::vector<Data> d;
  for (std::size_t i = 0; i < vectors; ++i) {
    std::iota(v[i].begin(), v[i].end(), static_cast<int>(i * 1000));
    d.push_back(rt->register_vector(v[i].data(), n, "v" + std::to_string(i)));
  }
  Codelet add_one = test::add_one_codelet(), acc = test::accumulate_codelet();
  std::vector<std::vector<int>> want = v;
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < vectors; ++i) {
      std::size_t j = (i * 5 + round) % vectors;
      if (j == i) j = (j + 1) % vectors;
      rt->submit(add_one, {{d[i], Access::ReadWrite}});
      rt->submit(acc, {{d[i], Access::Read}, {d[j], Access::ReadWrite}});
      for (std::size_t e = 0; e < n; ++e) want[i][e] += 1;
      for (std::size_t e = 0; e < n; ++e) want[j][e] += want[i][e];
    }
  ASSERT_NO_THROW(rt->wait_all());
  EXPECT_EQ(v, want);
  RuntimeStats s = rt->stats();
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.write_backs, 0u);
  EXPECT_LE(s.peak_device_bytes, 4 * n * sizeof(int));
  ASSERT_EQ(s.spaces.size(), 1u);
  EXPECT_EQ(s.spaces[0].limit_bytes, 4 * n * sizeof(int));
  EXPECT_EQ(s.write_back_bytes, s.write_backs * n * sizeof(int));
}

// Room for two: a and b are Modified on the device when c arrives; a (least recently used) is
// copied home once, its block reused for c; b and c are copied home once each.
TEST_P(DeviceMemoryCache, EvictedModifiedDataIsWrittenBackExactlyOnce) {
  constexpr std::size_t n = 64;
  auto rt = make_runtime(options(2, n, 1));
  std::vector<int> a(n, 1), b(n, 2), c(n, 3);
  Data da = rt->register_vector(a.data(), n, "a");
  Data db = rt->register_vector(b.data(), n, "b");
  Data dc = rt->register_vector(c.data(), n, "c");
  Codelet add_one = test::add_one_codelet();
  rt->submit(add_one, {{da, Access::ReadWrite}});
  rt->submit(add_one, {{db, Access::ReadWrite}});
  rt->submit(add_one, {{dc, Access::ReadWrite}});  // evicts a: written home
  ASSERT_NO_THROW(rt->wait_all());
  EXPECT_EQ(a, std::vector<int>(n, 2));
  EXPECT_EQ(b, std::vector<int>(n, 3));
  EXPECT_EQ(c, std::vector<int>(n, 4));
  RuntimeStats s = rt->stats();
  // b, the next victim, goes home once too: ahead of its eviction (when its task has ended before
  // c's eviction: docs/runtime.md, "Write-backs ahead") or at wait_all.
  EXPECT_GE(s.write_backs, 1u);
  EXPECT_LE(s.write_backs, 2u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.h2d_copies, 3u);
  EXPECT_EQ(s.d2h_copies, 3u);  // a's write-back, b's and c's: a not again
  // Using a again on the device copies it in again (it was evicted), and nothing is lost.
  rt->submit(add_one, {{da, Access::ReadWrite}});
  ASSERT_NO_THROW(rt->wait_all());
  EXPECT_EQ(a, std::vector<int>(n, 3));
  EXPECT_EQ(rt->stats().h2d_copies, 4u);
}

// The one error left: a task whose own buffers exceed the device. Clear message, nothing lost,
// and the runtime goes on.
TEST_P(DeviceMemoryCache, TaskLargerThanTheDeviceFailsAloneAndLosesNothing) {
  constexpr std::size_t n = 200;
  RuntimeOptions o = options(1, n);
  o.device_memory_limit += 200;  // one vector and a bit: two do not fit
  auto rt = make_runtime(o);
  std::vector<int> a(n, 5), b(n, 7);
  Data da = rt->register_vector(a.data(), n, "a");
  Data db = rt->register_vector(b.data(), n, "b");
  Codelet add_one = test::add_one_codelet(), acc = test::accumulate_codelet();
  rt->submit(add_one, {{da, Access::ReadWrite}});  // a Modified on the device
  rt->submit(acc, {{da, Access::Read}, {db, Access::ReadWrite}}, 0, "too big");
  rt->submit(add_one, {{db, Access::ReadWrite}});  // depends on it: not run
  try {
    rt->wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'too big'"), std::string::npos) << what;
    EXPECT_NE(what.find("more than the device's"), std::string::npos) << what;
    EXPECT_NE(what.find("1 dependent task not run"), std::string::npos) << what;
  }
  EXPECT_EQ(a, std::vector<int>(n, 6));  // written back from the device by wait_all
  EXPECT_EQ(b, std::vector<int>(n, 7));
  rt->submit(add_one, {{db, Access::ReadWrite}});  // fits alone (a is evicted for it)
  EXPECT_NO_THROW(rt->wait_all());
  EXPECT_EQ(b, std::vector<int>(n, 8));
}

// Two independent chains whose tasks each fill the device: a task waiting for room keeps what it
// has and no new task starts meanwhile, so every task is launched once and evicts at most its
// own buffers' worth. A livelock would show as evictions without tasks; bounded by counting.
TEST_P(DeviceMemoryCache, TasksThatFillTheDeviceDoNotEvictEachOtherForever) {
  constexpr std::size_t n = 128, rounds = 30;
  auto rt = make_runtime(options(2, n));
  std::vector<int> x(n, 0), y(n, 1), z(n, 0), w(n, 1);
  Data dx = rt->register_vector(x.data(), n, "x"), dy = rt->register_vector(y.data(), n, "y");
  Data dz = rt->register_vector(z.data(), n, "z"), dw = rt->register_vector(w.data(), n, "w");
  Codelet acc = test::accumulate_codelet();
  for (std::size_t r = 0; r < rounds; ++r) {
    rt->submit(acc, {{dy, Access::Read}, {dx, Access::ReadWrite}});
    rt->submit(acc, {{dw, Access::Read}, {dz, Access::ReadWrite}});
  }
  ASSERT_NO_THROW(rt->wait_all());
  EXPECT_EQ(x, std::vector<int>(n, static_cast<int>(rounds)));
  EXPECT_EQ(z, std::vector<int>(n, static_cast<int>(rounds)));
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.tasks, 2 * rounds);
  EXPECT_LE(s.evictions, 2 * 2 * rounds);  // at most both buffers of every task
  EXPECT_LE(s.h2d_copies, 2 * 2 * rounds);
  EXPECT_LE(s.write_backs, 2 * rounds);  // only the written one can be dirty
}

// Host memory registered piece by piece (tiles of a matrix, as the apps register them) beside a
// sequential twin: each task goes to the runtime and its steps (step_codelet.hpp) are applied to
// the twin at once, in submission order. After unregister_all both memories must be equal,
// padding included.
class TwinGraph {
 public:
  using u32 = std::uint32_t;
  explicit TwinGraph(Runtime& rt) : rt_(rt) {}
  /// A new memory of `elements` values, the same random ones in both; returns its index.
  std::size_t memory(std::size_t elements) {
    run_.emplace_back(elements);
    for (u32& x : run_.back()) x = static_cast<u32>(rng_());
    ref_.push_back(run_.back());
    return run_.size() - 1;
  }
  /// Registers `rows` x `cols` at `offset` of memory `m` (leading dimension `ld`); its index.
  std::size_t tile(std::size_t m, std::size_t offset, std::size_t rows, std::size_t cols,
                   std::size_t ld, const std::string& name) {
    pieces_.push_back({m, offset, rows, cols, ld,
                       rt_.register_matrix(run_[m].data() + offset, rows, cols, ld, name)});
    return pieces_.size() - 1;
  }
  void submit(const Codelet& c, const std::vector<std::pair<std::size_t, Access>>& accesses,
              const test::Steps& steps, int priority = 0) {
    std::vector<DataAccess> acc;
    std::vector<test::View> twin;
    for (auto [i, mode] : accesses) {
      const Piece& p = pieces_[i];
      acc.push_back({p.data, mode});
      twin.push_back({ref_[p.m].data() + p.offset, p.rows, p.cols, p.ld});
    }
    rt_.submit(c, acc, priority, {}, steps.bytes());
    test::apply_steps(twin, steps);
    ++tasks_;
  }
  void unregister_all() {
    for (Piece& p : pieces_) rt_.unregister(p.data);
  }
  bool same() const { return run_ == ref_; }
  std::uint64_t tasks() const { return tasks_; }
  std::uint64_t bytes() const {  // registered
    std::uint64_t n = 0;
    for (const Piece& p : pieces_) n += p.rows * p.cols * sizeof(u32);
    return n;
  }

 private:
  struct Piece {
    std::size_t m, offset, rows, cols, ld;
    Data data;
  };
  Runtime& rt_;
  std::mt19937 rng_{20261207};
  std::deque<std::vector<u32>> run_, ref_;  // a deque: the registered memory never moves
  std::vector<Piece> pieces_;
  std::uint64_t tasks_ = 0;
};

// The tile QR's graph (apps/qr/qr_graph.hpp: its kernels' accesses, program order and priorities;
// step_codelet.hpp's programs stand in for the kernels) of 4 x 4 tiles of 8 x 8 with a padded
// leading dimension, T tiles of 4 x 8 and the reflector copies: 6.25 KiB through a device with room
// for six tiles (tpmqrt's four buffers need 3.5), every task on the device. The panel's tiles are
// evicted and fetched again step after step; the result is the sequential one exactly.
TEST_P(DeviceMemoryCache, QrShapedGraphThroughRoomForAFewTiles) {
  constexpr int nt = 4;
  constexpr std::size_t b = 8, ib = 4, n = nt * b, ld = n + 3, tile_bytes = b * b * 4;
  RuntimeOptions o = options(1, 1);
  o.offload = {"geqrt", "gemqrt", "tpqrt", "tpmqrt"};
  o.device_memory_limit = 6 * tile_bytes;
  auto rt = make_runtime(o);
  std::atomic<std::uint64_t> on_device{0};
  std::vector<Codelet> qr;
  for (const char* name : {"geqrt", "gemqrt", "tpqrt", "tpmqrt"})
    qr.push_back(test::steps_codelet(name, &on_device));
  TwinGraph g(*rt);
  auto label = [](const char* what, int i, int j) {
    return std::string(what) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
  };
  std::vector<std::size_t> a(nt * nt), t(nt * nt), v(nt);
  std::size_t am = g.memory(ld * n), tm = g.memory(ib * b * nt * nt), vm = g.memory(nt * b * b);
  for (int j = 0; j < nt; ++j)
    for (int i = 0; i < nt; ++i)
      a[i + j * nt] = g.tile(am, i * b + j * b * ld, b, b, ld, label("A", i, j));
  for (int k = 0; k < nt; ++k) {
    for (int i = k; i < nt; ++i)
      t[i + k * nt] = g.tile(tm, (i + k * nt) * ib * b, ib, b, ib, label("T", i, k));
    v[k] = g.tile(vm, k * b * b, b, b, b, label("V", k, k));
  }
  ASSERT_GT(g.bytes(), 3 * o.device_memory_limit);  // the graph does not fit
  std::mt19937 salts(7);
  for (const test::QrTask& task : test::qr_tasks(nt, salts)) {
    std::vector<std::pair<std::size_t, Access>> acc;
    for (const test::QrAccess& x : task.accesses)
      acc.push_back({x.what == test::QrData::Tile     ? a[x.i + x.j * nt]
                     : x.what == test::QrData::Factor ? t[x.i + x.j * nt]
                                                      : v[x.i],
                     x.mode});
    g.submit(qr[static_cast<int>(task.kernel)], acc, task.steps, task.priority);
  }
  ASSERT_NO_THROW(rt->wait_all());
  ASSERT_NO_THROW(g.unregister_all());
  EXPECT_TRUE(g.same()) << "the QR graph's result differs from the sequential run";
  RuntimeStats s = rt->stats();
  EXPECT_EQ(g.tasks(), 30u);               // 4 geqrt, 6 gemqrt, 6 tpqrt, 14 tpmqrt
  EXPECT_EQ(on_device.load(), g.tasks());  // all of them on the device
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.write_backs, 0u);
  EXPECT_LE(s.peak_device_bytes, o.device_memory_limit);
}

// The stencil's graph (apps/stencil: two grids of 4 x 4 tiles of 8 x 8, a ragged last row and
// column, each registered on its own; a sweep writes every tile of one grid from its tile of the
// other and that tile's up to four neighbours, so each tile and its halo is read by up to five
// tasks; the grids swap between sweeps) for four sweeps through a device with room for eight
// tiles (a task's six buffers need six), every task on the device.
TEST_P(DeviceMemoryCache, StencilShapedGraphThroughRoomForAFewTiles) {
  constexpr int nt = 4, sweeps = 4;
  constexpr std::size_t b = 8, n = (nt - 1) * b + 5, tile_bytes = b * b * 4;
  RuntimeOptions o = options(1, 1);
  o.offload = {"jacobi"};
  o.device_memory_limit = 8 * tile_bytes;
  auto rt = make_runtime(o);
  std::atomic<std::uint64_t> on_device{0};
  Codelet jacobi = test::steps_codelet("jacobi", &on_device);
  TwinGraph g(*rt);
  auto width = [&](int i) { return i + 1 < nt ? b : n - (nt - 1) * b; };
  std::vector<std::size_t> grid[2] = {std::vector<std::size_t>(nt * nt),
                                      std::vector<std::size_t>(nt * nt)};
  for (int k = 0; k < 2; ++k) {
    std::size_t m = g.memory(n * n);
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nt; ++i)
        grid[k][i + j * nt] = g.tile(
            m, i * b + j * b * n, width(i), width(j), n,
            std::string(k ? "B" : "A") + "[" + std::to_string(i) + "," + std::to_string(j) + "]");
  }
  ASSERT_GT(g.bytes(), 3 * o.device_memory_limit);  // the graph does not fit
  std::mt19937 salts(11);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    const auto& in = grid[sweep % 2];
    const auto& out = grid[(sweep + 1) % 2];
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < nt; ++i) {
        // out = s + in + 2 north + 3 south; then out = 3 out + s + west + 2 east (those present)
        std::vector<std::pair<std::size_t, Access>> acc{{out[i + j * nt], Access::Write},
                                                        {in[i + j * nt], Access::Read}};
        std::vector<unsigned> first{1}, second;
        auto neighbour = [&](bool present, int ni, int nj, std::vector<unsigned>& step) {
          if (!present) return;
          step.push_back(static_cast<unsigned>(acc.size()));
          acc.push_back({in[ni + nj * nt], Access::Read});
        };
        neighbour(i > 0, i - 1, j, first);
        neighbour(i + 1 < nt, i + 1, j, first);
        neighbour(j > 0, i, j - 1, second);
        neighbour(j + 1 < nt, i, j + 1, second);
        test::Steps steps;
        steps.count = 2;
        steps.step[0] = test::make_step(static_cast<std::uint32_t>(salts()), 0, false, first);
        steps.step[1] = test::make_step(static_cast<std::uint32_t>(salts()), 0, true, second);
        g.submit(jacobi, acc, steps, sweeps - sweep);
      }
  }
  ASSERT_NO_THROW(rt->wait_all());
  ASSERT_NO_THROW(g.unregister_all());
  EXPECT_TRUE(g.same()) << "the stencil graph's result differs from the sequential run";
  RuntimeStats s = rt->stats();
  EXPECT_EQ(g.tasks(), static_cast<std::uint64_t>(sweeps * nt * nt));
  EXPECT_EQ(on_device.load(), g.tasks());
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.write_backs, 0u);
  EXPECT_LE(s.peak_device_bytes, o.device_memory_limit);
}

CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(DeviceMemoryCache);

// Two devices that complete work at once on their driver thread (as PoCL may), little memory, a
// scheduler that reads replica states under the runtime's lock, and CPU workers: write-backs land
// inside the driver's own calls. A completion that ran under a data lock would hang this run
// sometimes and shows under ThreadSanitizer as a lock-order inversion every time.
TEST(DeviceMemoryInline, WriteBacksThatCompleteAtOnceDoNotHang) {
  constexpr std::size_t n = 64, vectors = 8, rounds = 20;
  RuntimeOptions o;
  o.cpus = 2;
  o.pin = false;
  o.scheduler = "locality";
  o.offload = {"accumulate"};  // on the devices; add_one on the CPUs
  o.device_tasks_in_flight = 2;
  o.device_memory_limit = 3 * n * sizeof(int);
  auto rt = test::make_emulated_runtime(o, 2, /*inline_lanes=*/true);
  std::vector<std::vector<int>> v(vectors, std::vector<int>(n));
  std::vector<Data> d;
  for (std::size_t i = 0; i < vectors; ++i) {
    std::iota(v[i].begin(), v[i].end(), static_cast<int>(i));
    d.push_back(rt->register_vector(v[i].data(), n, "v" + std::to_string(i)));
  }
  Codelet acc = test::accumulate_codelet(), add_one = test::add_one_codelet();
  std::vector<std::vector<int>> want = v;
  for (std::size_t r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < vectors; ++i) {
      std::size_t j = (i + 1 + r % (vectors - 1)) % vectors;
      rt->submit(acc, {{d[i], Access::Read}, {d[j], Access::ReadWrite}});
      for (std::size_t e = 0; e < n; ++e)  // wrapping, as the codelet: 20 rounds overflow an int
        want[j][e] = static_cast<int>(static_cast<unsigned>(want[j][e]) + want[i][e]);
      if ((i + r) % 5 == 0) {
        rt->submit(add_one, {{d[i], Access::ReadWrite}});
        for (std::size_t e = 0; e < n; ++e) want[i][e] += 1;
      }
    }
  ASSERT_NO_THROW(rt->wait_all());
  EXPECT_EQ(v, want);
  RuntimeStats s = rt->stats();
  EXPECT_EQ(s.tasks, rounds * vectors + rounds * vectors / 5);
  EXPECT_GT(s.write_backs, 0u);
  EXPECT_LE(s.peak_device_bytes, o.device_memory_limit);
}

}  // namespace
}  // namespace conveyor

namespace conveyor {
namespace {

// A simulated platform (virtual time) with room for a few of 12 vectors on each device, kernels run
// for real: every wait for a write-back, on the host or for room, has to let virtual time move.
// Completes with the right results, and the counts agree with each other.
void run_on_simulated_platform(int devices, DeviceCopy copy) {
  constexpr std::size_t n = 256, vectors = 12;
  const std::size_t room = devices == 1 ? 4 : 2;  // together less than the 12 vectors
  std::string path = test::write_platform_file(test::switch_platform(4));
  RuntimeOptions o;
  o.cpus = 1;
  o.platform = path;
  o.platform_devices = devices;
  o.platform_run_kernels = true;
  o.scheduler = devices > 1 ? "round-robin" : "offload";
  o.offload = {"add_one", "accumulate"};
  o.device_copy = copy;
  o.device_memory_limit = room * n * sizeof(int);
  std::vector<std::vector<int>> v(vectors, std::vector<int>(n));
  std::vector<std::vector<int>> want;
  RuntimeStats s;
  {
    Runtime rt(o);
    std::vector<Data> d;
    for (std::size_t i = 0; i < vectors; ++i) {
      std::iota(v[i].begin(), v[i].end(), static_cast<int>(i * 1000));
      d.push_back(rt.register_vector(v[i].data(), n, "v" + std::to_string(i)));
    }
    want = v;
    Codelet add_one = test::add_one_codelet(), acc = test::accumulate_codelet();
    for (int round = 0; round < 3; ++round)
      for (std::size_t i = 0; i < vectors; ++i) {
        std::size_t j = (i * 5 + round) % vectors;
        if (j == i) j = (j + 1) % vectors;
        rt.submit(add_one, {{d[i], Access::ReadWrite}});
        rt.submit(acc, {{d[i], Access::Read}, {d[j], Access::ReadWrite}});
        for (std::size_t e = 0; e < n; ++e) want[i][e] += 1;
        for (std::size_t e = 0; e < n; ++e) want[j][e] += want[i][e];
      }
    ASSERT_NO_THROW(rt.wait_all());
    s = rt.stats();
    EXPECT_GT(rt.seconds(), 0.0);
  }
  std::remove(path.c_str());
  EXPECT_EQ(v, want);
  EXPECT_EQ(s.tasks, 3 * 2 * vectors);
  if (copy != DeviceCopy::PeerDirect) {  // which may use a peer's replica in place instead
    EXPECT_GT(s.evictions, 0u);
    EXPECT_GT(s.write_backs, 0u);
  }
  EXPECT_EQ(s.write_back_bytes, s.write_backs * n * sizeof(int));
  ASSERT_EQ(s.spaces.size(), static_cast<std::size_t>(devices));
  for (const SpaceStats& space : s.spaces) {
    EXPECT_LE(space.peak_bytes, room * n * sizeof(int)) << space.name;
    // Evicted blocks are reused, not freed: the room's blocks are allocated once each, and the
    // blocks taken (allocated or reused) and not evicted are the replicas still there at wait_all.
    EXPECT_LE(space.allocations, room) << space.name;
    EXPECT_LE(space.allocations + space.cache_hits - space.evictions, room) << space.name;
  }
  EXPECT_GE(s.d2h_copies, s.write_backs);
  // One device: nothing else goes home but the write-backs and, at wait_all, what it still holds.
  if (devices == 1) EXPECT_LE(s.d2h_copies, s.write_backs + room);
}

TEST(DeviceMemorySimulated, OneDeviceWithRoomForAFewBuffers) {
  run_on_simulated_platform(1, DeviceCopy::HostStaged);
}

TEST(DeviceMemorySimulated, FourDevicesWithRoomForAFewBuffers) {
  for (DeviceCopy copy : {DeviceCopy::HostStaged, DeviceCopy::PeerCopy, DeviceCopy::PeerDirect}) {
    SCOPED_TRACE(to_string(copy));
    run_on_simulated_platform(4, copy);
  }
}

}  // namespace
}  // namespace conveyor
