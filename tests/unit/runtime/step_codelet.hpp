#pragma once
// The differential test's integer operation, and tasks that run a short program of it over several
// buffers (the tile QR's tasks write two tiles, or a tile and a T tile): used by the differential
// test (tests/differential/) and by the device-memory tests, with CPU, OpenCL and CUDA
// implementations (the emulated device runs the CUDA one on host pointers).
//
// One step: out[e] = (rw ? 3 out[e] : 0) + salt + sum_j (j + 1) in_j[e mod count_j], j < reads,
// over the buffers' logical (column-major) elements. Every step depends on the order in which it
// meets its buffers' earlier values, so a task run out of order, or on a stale replica, changes
// the result.
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "qr/qr_graph.hpp"  // apps/qr: the tile QR's task flow
#include "unit/runtime/cuda_test_kernels.hpp"
#include "unit/runtime/device_codelets.hpp"

namespace conveyor::test {

constexpr unsigned kStepReads = 3;  // a tile and its two neighbours; tpmqrt's three operands
constexpr unsigned kMaxSteps = 4;

struct Step {
  std::uint32_t salt = 0;
  std::uint8_t out = 0;  // buffer index (the task's accesses, in order)
  std::uint8_t rw = 0;   // 1: read out's old value (ReadWrite), 0: overwrite it (Write)
  std::uint8_t reads = 0;
  std::uint8_t in[kStepReads] = {};  // buffer indices, none of them `out`
};

/// A task's program: its args (at most 64 bytes: Runtime::submit).
struct Steps {
  std::uint32_t count = 0;
  Step step[kMaxSteps];
  std::span<const std::byte> bytes() const { return std::as_bytes(std::span(this, 1)); }
};
static_assert(sizeof(Steps) <= 64, "task args are at most 64 bytes");

/// Host memory seen as a matrix: `rows` x `cols`, leading dimension `ld`.
struct View {
  std::uint32_t* p;
  std::size_t rows, cols, ld;
  std::size_t count() const { return rows * cols; }
  std::uint32_t& operator[](std::size_t e) const { return p[e % rows + e / rows * ld]; }
};

/// One step on host memory: the CPU implementation, and the sequential reference.
inline void apply_step(std::span<const View> b, const Step& s) {
  const View& out = b[s.out];
  for (std::size_t e = 0; e < out.count(); ++e) {
    std::uint32_t acc = (s.rw ? 3u * out[e] : 0u) + s.salt;
    for (std::uint32_t j = 0; j < s.reads; ++j) {
      const View& in = b[s.in[j]];
      acc += (j + 1) * in[e % in.count()];
    }
    out[e] = acc;
  }
}

inline void apply_steps(std::span<const View> b, const Steps& steps) {
  for (std::uint32_t i = 0; i < steps.count; ++i) apply_step(b, steps.step[i]);
}

inline void step_on_host(const TaskContext& t, const Step& s) {
  std::vector<View> b;
  for (std::size_t i = 0; i < t.size(); ++i)
    b.push_back({t.data<std::uint32_t>(i), t.buffer(i).rows, t.buffer(i).cols, t.buffer(i).ld});
  apply_step(b, s);
}

// Device buffers are contiguous (ld == rows).
inline const char* kStepSource = R"CL(
__kernel void op(__global uint* o, uint ocount, uint rw, uint salt,
                 __global const uint* r1, uint r1count, __global const uint* r2, uint r2count,
                 __global const uint* r3, uint r3count, uint reads) {
  uint e = get_global_id(0);
  if (e >= ocount) return;
  uint acc = (rw ? 3u * o[e] : 0u) + salt;
  if (reads > 0) acc += 1u * r1[e % r1count];
  if (reads > 1) acc += 2u * r2[e % r2count];
  if (reads > 2) acc += 3u * r3[e % r3count];
  o[e] = acc;
}
)CL";

/// Enqueues one step on the task's queue (in order: a later step sees an earlier one's writes).
inline void step_on_opencl(const TaskContext& t, const Step& s) {
  auto k = static_cast<cl_kernel>(t.opencl_kernel());
  auto set = [&](cl_uint i, const auto& v) { set_arg(k, i, sizeof v, &v); };
  auto count = [&](std::size_t i) {
    return static_cast<std::uint32_t>(t.buffer(i).rows * t.buffer(i).cols);
  };
  set(0, t.opencl_mem(s.out));
  set(1, count(s.out));
  set(2, std::uint32_t{s.rw});
  set(3, s.salt);
  for (std::uint32_t j = 0; j < kStepReads; ++j) {
    std::size_t b = j < s.reads ? s.in[j] : s.out;  // unused inputs: the output (never read)
    set(4 + 2 * j, t.opencl_mem(b));
    set(5 + 2 * j, count(b));
  }
  set(10, std::uint32_t{s.reads});
  // A fixed work-group size: PoCL compiles one kernel variant per local size it picks, and random
  // lengths would make it pick many.
  std::size_t local = 16;
  enqueue_1d(t, (count(s.out) + local - 1) / local * local, local);
}

inline void step_on_cuda(const TaskContext& t, const Step& s) {
  if (!cuda::real(t.device())) return step_on_host(t, s);  // emulated: host memory
  cuda::DiffOp op{};
  op.out = t.data<std::uint32_t>(s.out);
  op.count = static_cast<std::uint32_t>(t.buffer(s.out).rows * t.buffer(s.out).cols);
  op.read_write = s.rw;
  op.salt = s.salt;
  op.reads = s.reads;
  for (std::uint32_t j = 0; j < s.reads; ++j) {
    op.in[j] = t.data<std::uint32_t>(s.in[j]);
    op.in_count[j] = static_cast<std::uint32_t>(t.buffer(s.in[j]).rows * t.buffer(s.in[j]).cols);
  }
  cuda::diff_op(op, t.cuda_stream());
}

/// A codelet that runs the Steps of its args, in order, on any device kind; `on_device`, when
/// given, counts the tasks run on a device (a simulated platform's devices run the CPU
/// implementation), so that a test can tell that its shape really went through device memory.
inline Codelet steps_codelet(const std::string& name,
                             std::atomic<std::uint64_t>* on_device = nullptr) {
  Codelet c(name);
  auto each = [on_device](auto step) {
    return [step, on_device](const TaskContext& t) {
      Steps s = t.args<Steps>();
      if (on_device && t.device() != "cpu") on_device->fetch_add(1, std::memory_order_relaxed);
      for (std::uint32_t i = 0; i < s.count; ++i) step(t, s.step[i]);
    };
  };
  c.cpu(each(step_on_host)).cuda(each(step_on_cuda));
  c.opencl({.source = kStepSource, .kernel = "op"}, each(step_on_opencl));
  return c;
}

inline Step make_step(std::uint32_t salt, unsigned out, bool rw, std::vector<unsigned> in) {
  Step s;
  s.salt = salt;
  s.out = static_cast<std::uint8_t>(out);
  s.rw = rw;
  s.reads = static_cast<std::uint8_t>(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) s.in[j] = static_cast<std::uint8_t>(in[j]);
  return s;
}

// The tile QR's shape (apps/qr/qr_graph.hpp: the app's kernels, accesses and priorities, in its
// program order) with the steps above standing in for the kernels.
enum class QrData { Tile, Factor, Reflector };  // A_ij, T_ik, V_k

struct QrAccess {
  QrData what;
  int i, j;  // Tile: A_ij; Factor: T_ij; Reflector: V_i
  Access mode;
};

struct QrTask {
  apps::qr::Kernel kernel;
  int priority;
  std::vector<QrAccess> accesses;
  Steps steps;
};

/// The names of the QR codelets, indexed by apps::qr::Kernel.
inline const char* qr_kernel_name(apps::qr::Kernel k) {
  static const char* names[] = {"geqrt", "gemqrt", "tpqrt", "tpmqrt"};
  return names[static_cast<int>(k)];
}

/// The tasks of a factorisation with nt tiles per side, salts drawn from `rng`. Each task reads
/// what the kernel reads and writes every buffer the kernel writes, each written one from the
/// others, as the kernels couple them:
///   geqrt  [A_kk rw, V_k w, T_kk w]           A_kk = 3 A_kk + s; V_k = s + A_kk;
///                                             T_kk = s + A_kk + 2 V_k
///   gemqrt [V_k r, T_kk r, A_kj rw]           A_kj = 3 A_kj + s + V_k + 2 T_kk
///   tpqrt  [A_kk rw, A_ik rw, T_ik w]         A_kk = 3 A_kk + s + A_ik; A_ik = 3 A_ik + s + A_kk;
///                                             T_ik = s + A_ik + 2 A_kk
///   tpmqrt [A_ik r, T_ik r, A_kj rw, A_ij rw] A_kj = 3 A_kj + s + A_ik + 2 T_ik + 3 A_ij;
///                                             A_ij = 3 A_ij + s + A_kj + 2 A_ik + 3 T_ik
template <typename Rng>
std::vector<QrTask> qr_tasks(int nt, Rng& rng) {
  using apps::qr::Kernel;
  std::vector<QrTask> out;
  apps::qr::for_each_task(nt, [&](Kernel kernel, int i, int j, int k, int priority) {
    auto salt = [&] { return static_cast<std::uint32_t>(rng()); };
    QrTask t{kernel, priority, {}, {}};
    auto& s = t.steps;
    switch (kernel) {
      case Kernel::Geqrt:
        t.accesses = {{QrData::Tile, k, k, Access::ReadWrite},
                      {QrData::Reflector, k, k, Access::Write},
                      {QrData::Factor, k, k, Access::Write}};
        s.count = 3;
        s.step[0] = make_step(salt(), 0, true, {});
        s.step[1] = make_step(salt(), 1, false, {0});
        s.step[2] = make_step(salt(), 2, false, {0, 1});
        break;
      case Kernel::Gemqrt:
        t.accesses = {{QrData::Reflector, k, k, Access::Read},
                      {QrData::Factor, k, k, Access::Read},
                      {QrData::Tile, k, j, Access::ReadWrite}};
        s.count = 1;
        s.step[0] = make_step(salt(), 2, true, {0, 1});
        break;
      case Kernel::Tpqrt:
        t.accesses = {{QrData::Tile, k, k, Access::ReadWrite},
                      {QrData::Tile, i, k, Access::ReadWrite},
                      {QrData::Factor, i, k, Access::Write}};
        s.count = 3;
        s.step[0] = make_step(salt(), 0, true, {1});
        s.step[1] = make_step(salt(), 1, true, {0});
        s.step[2] = make_step(salt(), 2, false, {1, 0});
        break;
      case Kernel::Tpmqrt:
        t.accesses = {{QrData::Tile, i, k, Access::Read},
                      {QrData::Factor, i, k, Access::Read},
                      {QrData::Tile, k, j, Access::ReadWrite},
                      {QrData::Tile, i, j, Access::ReadWrite}};
        s.count = 2;
        s.step[0] = make_step(salt(), 2, true, {0, 1, 3});
        s.step[1] = make_step(salt(), 3, true, {2, 0, 1});
        break;
      case Kernel::Ttqrt:  // the flat tree has none
      case Kernel::Ttmqrt:
        break;
    }
    out.push_back(std::move(t));
  });
  return out;
}

}  // namespace conveyor::test
