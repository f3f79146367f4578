// conveyor/models.hpp: WorkerModels, what the models predict for a runtime's workers before it
// starts (the tiled apps' tile size).
#include <optional>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "conveyor/models.hpp"
#include "conveyor/topology.hpp"
#include "device/simulated/platform.hpp"
#include "runtime/perfmodel/models.hpp"
#include "runtime/perfmodel/store.hpp"

namespace conveyor {

struct WorkerModels::State {
  std::optional<device::simulated::PlatformSpec> platform;  // a simulated platform's models
  runtime::perfmodel::PerfModels measured;                  // else this machine's models file
};

WorkerModels::WorkerModels(const RuntimeOptions& options) : state_(std::make_unique<State>()) {
  int cpus = options.cpus;
  if (!options.platform.empty()) {
    auto spec = device::simulated::read_platform(options.platform);
    if (cpus < 0) cpus = spec.host_cores;
    const int count = static_cast<int>(spec.devices.size());
    const int used = options.platform_devices == RuntimeOptions::kPlatformHostOnly ? 0
                     : options.platform_devices > 0 ? std::min(options.platform_devices, count)
                                                    : count;
    if (cpus > 0) workers_.push_back({"cpu", DeviceKind::Cpu, cpus, false});
    for (int d = 0; d < used; ++d) workers_.push_back({spec.devices[d].id, DeviceKind::Cuda, 1});
    state_->platform = std::move(spec);
    return;
  }
  if (cpus < 0) cpus = static_cast<int>(host_topology().cores.size());
  if (cpus > 0) workers_.push_back({"cpu", DeviceKind::Cpu, cpus, false});
  for (const auto& id : expand_devices(options.devices))
    workers_.push_back(
        {id, find_device(id)->info().kind, 1, runtime::perfmodel::shares_host_cores(id)});
  if (options.perf_models == "none") return;  // kept in memory by each runtime: nothing yet
  try {
    state_->measured = runtime::perfmodel::PerfModels::load(
        options.perf_models.empty() ? default_models_path()
                                    : std::filesystem::path(options.perf_models),
        current_machine());
  } catch (const UsageError&) {
    // Corrupt, foreign or unreadable: the runtime says so once when it starts; here it only
    // means that nothing is known.
  }
}

WorkerModels::~WorkerModels() = default;

double WorkerModels::seconds(std::string_view codelet, std::string_view device,
                             std::span<const std::size_t> buffer_bytes, double flops) const {
  std::uint64_t bytes = 0;
  for (std::size_t b : buffer_bytes) bytes += b;
  const std::string name(codelet);
  if (const auto& spec = state_->platform) {
    const double f = flops > 0 ? flops : -1;
    if (device == "cpu") return spec->host.seconds(name, f, static_cast<double>(bytes));
    for (const auto& d : spec->devices)
      if (d.id == device) return d.compute.seconds(name, f, static_cast<double>(bytes));
    return -1;
  }
  runtime::perfmodel::TaskShape shape;
  shape.footprint = runtime::perfmodel::footprint(buffer_bytes);
  shape.bytes = bytes;
  shape.flops = flops;
  auto p = state_->measured.predict(name, std::string(device), shape);
  return p.known() ? p.seconds : -1;
}

double WorkerModels::nominal_flops(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Cpu:
      return 1e10;
    case DeviceKind::Cuda:
      return 4e12;
    case DeviceKind::OpenCL:
      return 2e10;
  }
  return 4e9;
}

}  // namespace conveyor
