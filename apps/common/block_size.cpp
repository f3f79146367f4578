#include "common/block_size.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "conveyor/models.hpp"
#include "conveyor/topology.hpp"

namespace conveyor::apps::common {

namespace {

// A class of workers whose modelled time for the whole workload is more than this many times the
// devices' leaves them little to add: the tiles are sized for the devices. (The H200 node: its 16
// cores run Cholesky's gemm some 90x slower than the GPU together.)
constexpr double kDevicesDominate = 4.0;
// Among tiles whose modelled time is within this of the best, the largest: a fitted curve's noise
// must not choose smaller tiles than the ones measured best.
constexpr double kTileTolerance = 0.02;

// Seconds of the whole workload on one worker of `device` (kind `kind`): the models' predictions,
// else the flops at the kind's nominal rate; < 0 when neither is known for some task kind.
double workload_seconds(const WorkerModels& models, const WorkerClass& w,
                        const std::vector<TileTasks>& tasks) {
  double total = 0;
  for (const auto& t : tasks) {
    if (t.count <= 0) continue;
    double s = models.seconds(t.codelet, w.device, t.buffer_bytes, t.flops);
    if (s < 0 && t.flops > 0) s = t.flops / WorkerModels::nominal_flops(w.kind);
    if (s < 0) return -1;
    total += t.count * s;
  }
  return total;
}

// The devices' tile: among multiples of the granule up to kMaxDeviceBlock that leave 4 sqrt(d)
// tiles per side for d devices, the one the models say runs the workload fastest on them, the
// largest among near ties; 0 when the models know nothing of a device.
int device_block(int n, const WorkerModels& models, const std::vector<const WorkerClass*>& devices,
                 const TileWorkload& workload) {
  const int most = default_block(n, static_cast<int>(devices.size()), kMaxDeviceBlock);
  std::vector<std::pair<int, double>> times;
  double best = std::numeric_limits<double>::max();
  for (int b = kBlockGranule; b <= most; b += kBlockGranule) {
    const std::vector<TileTasks> tasks = workload(n, b);
    double rate = 0;  // workloads per second, the devices together
    for (const WorkerClass* d : devices) {
      double s = workload_seconds(models, *d, tasks);
      if (s <= 0) return 0;
      rate += 1 / s;
    }
    times.emplace_back(b, 1 / rate);
    best = std::min(best, 1 / rate);
  }
  int chosen = most;
  for (const auto& [b, t] : times)
    if (t <= best * (1 + kTileTolerance)) chosen = b;
  return chosen;
}

}  // namespace

namespace {
// The tile that splits n into at least `for_workers` tiles per side and into tiles no larger than
// max_block, rounded down to the granule so that there are at least that many (the last, ragged
// tile takes the rest), and never below the granule.
int block_for_tiles(int n, int for_workers, int max_block) {
  const int for_size = (n + max_block - 1) / max_block;
  const int tiles = std::max(for_workers, for_size);
  const int block = (n + tiles - 1) / tiles / kBlockGranule * kBlockGranule;
  return std::max(block, kBlockGranule);
}
}  // namespace

int cpu_workers(const RuntimeOptions& options) {
  return options.cpus < 0 ? static_cast<int>(host_topology().cores.size()) : options.cpus;
}

int default_block(int n, int workers, int max_block) {
  const double p = std::max(workers, 1);
  // Enough tiles per side for p workers to the end (4 sqrt(p), see the header).
  return block_for_tiles(n, static_cast<int>(std::ceil(4.0 * std::sqrt(p))), max_block);
}

int sweep_block(int n, int workers, int max_block) {
  const double p = std::max(workers, 1);
  return block_for_tiles(n, static_cast<int>(std::ceil(2.0 * std::sqrt(2.0 * p))), max_block);
}

int block_for(int n, int block, const RuntimeOptions& options) {
  if (block > 0) return block;
  const int cpus = cpu_workers(options);
  return default_block(n, cpus + static_cast<int>(options.devices.size()),
                       cpus == 0 ? kMaxDeviceBlock : kMaxDefaultBlock);
}

int block_for(int n, int block, const RuntimeOptions& options, const TileWorkload& workload) {
  if (block > 0) return block;
  const bool simulated = !options.platform.empty();
  if (!simulated && options.devices.empty()) return block_for(n, block, options);  // CPUs only
  const std::string scheduler = resolved_scheduler(options);
  const bool by_models = scheduler == "model" || scheduler == "model-ready";
  WorkerModels models(options);
  int workers = 0, cpus = 0;
  std::vector<const WorkerClass*> devices;
  for (const auto& w : models.workers()) {
    workers += w.count;
    if (w.kind == DeviceKind::Cpu) cpus = w.count;
  }
  // A device on the host's own cores (PoCL) competes with the CPU workers: never sized for alone.
  for (const auto& w : models.workers())
    if (w.kind != DeviceKind::Cpu && !(w.shares_host_cores && cpus > 0)) devices.push_back(&w);
  // Today's rule, by worker count: a policy that does not place by the models (the seed's
  // offload, eager) spreads the tasks over every worker whatever their speed.
  auto by_count = [&] {
    return default_block(n, workers, cpus == 0 ? kMaxDeviceBlock : kMaxDefaultBlock);
  };
  if (!by_models || devices.empty() || !workload) return by_count();
  // The fastest device, and the devices that are within kDevicesDominate of it (tiles are sized
  // for those together).
  const std::vector<TileTasks> probe = workload(n, default_block(n, 1, kMaxDeviceBlock));
  double fastest = std::numeric_limits<double>::max();
  for (const WorkerClass* d : devices) {
    double s = workload_seconds(models, *d, probe);
    if (s <= 0) return by_count();
    fastest = std::min(fastest, s);
  }
  std::vector<const WorkerClass*> strong;
  for (const WorkerClass* d : devices)
    if (workload_seconds(models, *d, probe) <= kDevicesDominate * fastest) strong.push_back(d);
  const int b = device_block(n, models, strong, workload);
  if (b == 0) return by_count();
  // The rest of the workers (the CPU cores, slower devices) together, at the devices' tile: when
  // they would take kDevicesDominate times the strong devices' time, the tiles are the devices'
  // and the model scheduler gives the others a task only where that ends it sooner.
  const std::vector<TileTasks> tasks = workload(n, b);
  double strong_rate = 0, others_rate = 0;
  for (const auto& w : models.workers()) {
    double s = workload_seconds(models, w, tasks);
    bool is_strong = std::find(strong.begin(), strong.end(), &w) != strong.end();
    if (s <= 0) {
      if (!is_strong) continue;  // a worker nothing is known of adds nothing to the estimate
      return by_count();
    }
    // A device on the host's cores adds nothing beside the CPU workers.
    if (w.shares_host_cores && cpus > 0) continue;
    (is_strong ? strong_rate : others_rate) += w.count / s;
  }
  if (others_rate * kDevicesDominate <= strong_rate) return b;
  return by_count();
}

}  // namespace conveyor::apps::common
