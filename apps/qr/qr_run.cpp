#include "qr/qr_run.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/blas_threads.hpp"
#include "common/block_size.hpp"
#include "common/cache_line_vector.hpp"
#include "common/median.hpp"
#include "common/memory_check.hpp"
#include "common/trace_phases.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_matrix.hpp"

namespace conveyor::apps::qr {
namespace {

using common::TracePhase;

bool simulated(const RunConfig& c) { return !c.runtime.platform.empty(); }
// "n = 4096", or "m x n = 100000 x 64" for a tall matrix.
std::string size_text(const RunConfig& c) {
  return c.rows() == c.n ? "n = " + std::to_string(c.n)
                         : "m x n = " + std::to_string(c.rows()) + " x " + std::to_string(c.n);
}
// Whether the run touches the matrix: a real run, or a simulated one that runs the kernels.
bool touches_matrix(const RunConfig& c) { return !simulated(c) || c.runtime.platform_run_kernels; }

template <typename T>
RunResult run_typed(const RunConfig& c) {
  RunResult result;
  result.block = block_for(c);
  result.ib = inner_block(c, result.block);
  result.cpu_kernels = cpu_kernel_library();
  // One BLAS thread per task: the runtime already runs one task per core.
  common::use_single_threaded_blas();

  RuntimeOptions options = c.runtime;
  options.trace = !c.trace.empty();
  std::vector<TracePhase> phases;
  // The matrix and its T factors are declared before the runtime so that they outlive it, but
  // allocated after it started: the runtime rejects a bad scheduler before the memory is taken.
  // A simulation that runs no kernels only passes tile addresses around: the matrix is reserved,
  // not backed (common::HostMatrix).
  const int m = c.rows();
  const GeneralMatrix matrix(m, c.n);
  std::optional<common::HostMatrix<T>> a;
  std::optional<TFactors<T>> factors;
  Runtime rt(options);
  const std::size_t elements = static_cast<std::size_t>(m) * static_cast<std::size_t>(c.n);
  a.emplace(elements, touches_matrix(c));
  TFactors<T>& t =
      factors.emplace(MatrixSize{m, c.n}, result.block, result.ib, domains_for(c, result.block));
  // Once, untimed: tiles of pinned memory move at link speed (CUDA), pageable ones at a fraction.
  if (!simulated(c)) rt.pin_host(a->data(), elements * sizeof(T));
  auto now_us = [&rt] { return rt.seconds() * 1e6; };
  result.workers = rt.workers();
  QrCodelets codelets(c.precision);

  // On a simulated platform too, as on the machine it stands for (docs/simulation.md).
  if (c.warmup) {
    tell(c.progress, "warm-up");
    // Three tiles per side is the smallest matrix with a task of every kind and a tpmqrt chain.
    double start = now_us();
    int wb = std::min(result.block, 64), wn = 3 * wb;
    common::CacheLineVector<T> w(static_cast<std::size_t>(wn) * wn);
    GeneralMatrix(wn).fill(w.data(), wn);
    TFactors<T> wt(wn, wb, std::min(result.ib, wb));
    factorize(rt, codelets, w.data(), wn, wn, wb, wt);
    phases.push_back(
        {"warm-up (3 x 3 tiles, first use of each device: OpenCL program build; not timed)", start,
         now_us(), false});
  }

  for (int r = 0; r < c.repeat; ++r) {
    tell(c.progress, "factorisations", r, c.repeat);
    double start = now_us();
    if (touches_matrix(c)) {
      matrix.fill(a->data(), m);
      phases.push_back({"matrix generation (not timed)", start, now_us(), false});
    }
    start = now_us();
    Factorization f = factorize(rt, codelets, a->data(), m, t, touches_matrix(c));
    phases.push_back(
        {"factorisation " + std::to_string(r + 1) + " (timed)", start, now_us(), true});
    result.times_s.push_back(f.time_s);
    if (r == 0 || f.time_s < result.best.time_s) result.best = f;
  }
  if (!c.trace.empty()) {
    rt.write_trace(c.trace);
    common::add_phases_to_trace(c.trace, "qr", phases);
  }

  result.median_time_s = common::median(result.times_s);
  result.gflops = qr_flops(m, c.n) / result.best.time_s / 1e9;
  result.residual_bound = residual_bound<T>(m);
  result.orthogonality_bound = orthogonality_bound<T>(m);
  if (c.check) {
    tell(c.progress, "check");
    result.checked = true;
    result.check = check_qr(matrix, a->data(), m, t);
  }
  return result;
}

// A listed device must exist, be an accelerator this build has kernels for, and do what the
// kernels need: double precision for --precision d, a panel work-group of kOpenclPanelGroup.
void validate_device(const RunConfig& c, const std::string& id) {
  auto device = find_device(id);  // UsageError naming the devices that exist
  const DeviceInfo& info = device->info();
  if (info.kind == DeviceKind::Cpu)
    throw UsageError("qr: '" + id + "' is the host; name it as 'cpu' in --devices");
  if (!QrCodelets(c.precision).geqrt.has(info.kind))
    throw UsageError("qr: this build has no kernels for " + id);
  if (info.kind != DeviceKind::OpenCL) return;
  auto details = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
  if (!details.is_object()) details = nlohmann::json::object();
  if (c.precision == Precision::Double && !details.value("fp64", false))
    throw UsageError("qr: " + id + " has no double precision (cl_khr_fp64); use --precision s");
  auto max_group = details.value("max_work_group_size", std::size_t{0});
  if (max_group != 0 && max_group < static_cast<std::size_t>(kOpenclPanelGroup))
    throw UsageError("qr: " + id + " allows work-groups of " + std::to_string(max_group) +
                     " work-items; the OpenCL panel kernels need " +
                     std::to_string(kOpenclPanelGroup));
}

}  // namespace

void validate(const RunConfig& c, bool needs_memory) {
  if (c.n <= 0) throw UsageError("qr: --n must be positive (got " + std::to_string(c.n) + ")");
  if (c.m < 0) throw UsageError("qr: --m must be positive (got " + std::to_string(c.m) + ")");
  if (c.rows() < c.n)
    throw UsageError("qr: --m (rows) must be at least --n (columns): got " + std::to_string(c.m) +
                     " x " + std::to_string(c.n) + "; the QR of the transpose is an LQ");
  if (c.block < 0)
    throw UsageError("qr: --block must be positive (got " + std::to_string(c.block) + ")");
  if (c.ib < 0) throw UsageError("qr: --ib must be positive (got " + std::to_string(c.ib) + ")");
  if (c.domains < 0)
    throw UsageError("qr: --domains must be positive (got " + std::to_string(c.domains) + ")");
  if (c.domains > 1 && c.runtime.cpus == 0)
    throw UsageError("qr: --domains above 1 needs CPU workers: the tree's TT kernels run there");
  if (c.repeat <= 0) throw UsageError("qr: --repeat must be positive");
  if (simulated(c)) {
    if (!c.runtime.devices.empty())
      throw UsageError("qr: --platform brings its own devices; leave out --devices");
    if (c.check && !c.runtime.platform_run_kernels)
      throw UsageError("qr: --check on a simulated platform needs --sim-run-kernels");
  } else if (c.runtime.cpus == 0 && c.runtime.devices.empty()) {
    throw UsageError("qr: no workers: --devices lists neither cpu nor a device");
  }
  for (const auto& id : c.runtime.devices) validate_device(c, id);
  if (!cpu_kernels_available())
    throw UsageError(
        "qr: needs LAPACKE (geqrt/tpqrt/...), which was not found when Conveyor was configured; "
        "install OpenBLAS + LAPACKE (scripts/setup-deps.sh) and reconfigure");

  if (!needs_memory || !touches_matrix(c)) return;
  // The matrix, and for the check the reduced Q twice (T, then double) and an n x n double matrix.
  const double elements = static_cast<double>(c.rows()) * c.n;
  const double element_bytes = c.precision == Precision::Single ? 4 : 8;
  const double check_bytes =
      elements * (element_bytes + sizeof(double)) + static_cast<double>(c.n) * c.n * sizeof(double);
  common::require_host_memory("qr", size_text(c),
                              elements * element_bytes + (c.check ? check_bytes : 0));
}

namespace {
// The factorisation's tasks by kind (flat tree), for the tile rule's models: square tiles, T
// tiles of inner_block(c, b) rows, buffers in the order of qr_graph.hpp, flops of the codelets'
// cost functions (qr.cpp).
common::TileWorkload workload(const RunConfig& c) {
  return [precision = c.precision, ib = c.ib, rows = c.m,
          devices = common::with_devices(c.runtime)](int n, int b) {
    const int m = std::max(rows, n);
    const TaskCounts count = task_counts((m + b - 1) / b, (n + b - 1) / b);
    const double b3 = static_cast<double>(b) * b * b;
    const std::size_t element = precision == Precision::Single ? 4 : 8;
    const std::size_t tile = static_cast<std::size_t>(b) * b * element;
    const std::size_t t = static_cast<std::size_t>(inner_block_for(ib, b, devices)) * b * element;
    return std::vector<common::TileTasks>{
        {"geqrt", static_cast<double>(count.geqrt), 4 * b3 / 3, {tile, tile, t}},
        {"gemqrt", static_cast<double>(count.gemqrt), 2 * b3, {tile, t, tile}},
        {"tpqrt", static_cast<double>(count.tpqrt), 2 * b3, {tile, tile, t}},
        {"tpmqrt", static_cast<double>(count.tpmqrt), 4 * b3, {tile, t, tile, tile}}};
  };
}
}  // namespace

int inner_block(const RunConfig& c, int block) {
  return inner_block_for(c.ib, block, common::with_devices(c.runtime));
}

int domains_for(const RunConfig& c, int block) {
  if (c.domains > 0) return c.domains;
  if (common::with_devices(c.runtime)) return 1;
  const int cpus = common::cpu_workers(c.runtime);
  const int mt = (c.rows() + block - 1) / block, nt = (c.n + block - 1) / block;
  if (cpus <= 1 || nt * nt >= 2 * cpus) return 1;
  return std::clamp(mt / 2, 1, cpus);
}

int block_for(const RunConfig& c) {
  const int m = c.rows();
  if (c.block > 0 || m == c.n || common::with_devices(c.runtime))
    return common::block_for(c.n, c.block, c.runtime, workload(c));
  // A tall matrix on CPU workers: the tile of a square matrix with as many elements, sqrt(m n)
  // per side (its tiles, not its tile columns, are what the workers share: domains_for gives a
  // thin one a tree), but at most about twice as high as the matrix is wide, since a tile of few
  // columns makes a slow kernel (2-core Xeon, 100000 x 64 on a tree of 2: tile 128 16 GFLOP/s,
  // 256 13; 20000 x 256: 320 and 512 alike, 28-37; 4000 x 1000: 320 53-59 against 42 at 128).
  const int order = static_cast<int>(std::sqrt(static_cast<double>(m) * c.n));
  const int thin =
      (2 * c.n + common::kBlockGranule - 1) / common::kBlockGranule * common::kBlockGranule;
  return std::min(common::block_for(order, 0, c.runtime), thin);
}

RunResult run_qr(const RunConfig& config) {
  validate(config);
  return config.precision == Precision::Single ? run_typed<float>(config)
                                               : run_typed<double>(config);
}

}  // namespace conveyor::apps::qr
