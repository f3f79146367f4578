#include "runtime/perfmodel/store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

#include "conveyor/calibration.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/records.hpp"

namespace conveyor::runtime::perfmodel {

namespace {

void warn(const std::string& line) {
  std::fprintf(stderr, "conveyor: warning: %s\n", line.c_str());
}

}  // namespace

ModelStore::ModelStore(const std::string& path, const std::string& calibration,
                       const std::vector<device::DeviceDriver*>& drivers) {
  MachineFingerprint machine = current_machine();
  models_.machine = machine;
  const device::ModelledCosts* costs = nullptr;
  for (device::DeviceDriver* d : drivers)
    if (!costs) costs = d->modelled_costs();
  if (costs) {  // a simulated platform: its models, and this machine's file left alone
    use_platform(*costs, drivers);
    return;
  }
  if (path != "none") {
    try {
      path_ = path.empty() ? default_models_path() : std::filesystem::path(path);
      models_ = PerfModels::load(path_, machine);
      models_.machine = machine;
    } catch (const UsageError& e) {  // corrupt, foreign, no HOME: start empty, say so once
      warn(e.what());
      models_ = PerfModels{};
      models_.machine = machine;
    }
  }
  setup_links(calibration, drivers);
}

void ModelStore::use_platform(const device::ModelledCosts& costs,
                              const std::vector<device::DeviceDriver*>& drivers) {
  Oracle oracle;
  oracle.task = [&costs](const std::string& codelet, const std::string& device,
                         const TaskShape& shape) {
    // TaskShape says 0 flops for a codelet without a cost function.
    return costs.task_seconds(codelet, device, shape.flops > 0 ? shape.flops : -1, shape.bytes);
  };
  oracle.copy = [&costs](const std::string& from, const std::string& to, std::uint64_t bytes) {
    return costs.copy_seconds(from, to, bytes);
  };
  models_.set_oracle(std::move(oracle));
  // The per-device link model (`conveyor models`, and schedulers that ask it without an oracle):
  // the host -> device route's latency and bandwidth, from two copy sizes.
  constexpr std::uint64_t kLarge = 8'000'000;
  for (device::DeviceDriver* d : drivers) {
    double small = costs.copy_seconds("host", d->id(), 1);
    double large = costs.copy_seconds("host", d->id(), kLarge + 1);
    if (small < 0 || large <= small) continue;
    models_.links()[d->id()] = {small * 1e6, kLarge / (large - small) / 1e9, "platform"};
  }
}

void ModelStore::setup_links(const std::string& calibration,
                             const std::vector<device::DeviceDriver*>& drivers) {
  std::optional<Calibration> cal;
  try {
    std::filesystem::path p =
        calibration.empty() ? default_calibration_path() : std::filesystem::path(calibration);
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) cal = Calibration::load(p);
  } catch (const UsageError& e) {  // stale or corrupt: the links are measured instead
    warn(std::string(e.what()) + "; the runtime measures its links instead");
  }
  for (device::DeviceDriver* d : drivers) {
    const CalibrationEntry* entry = nullptr;
    if (cal)
      for (MemoryModel m : {MemoryModel::Pinned, MemoryModel::Pageable})
        if (!entry)
          if (const auto* e = cal->find(d->id(), m); e && e->links.count("h2d")) entry = e;
    if (entry) {
      const LinkCalibration& h2d = entry->links.at("h2d");
      models_.links()[d->id()] = {h2d.latency_us, h2d.bw_gbs, "probe"};
      continue;
    }
    auto it = models_.links().find(d->id());
    if (it != models_.links().end() && it->second.source == "measured" && it->second.bw_gbs > 0)
      continue;  // measured by an earlier run on this machine
    models_.links()[d->id()] = measure_link(*d);
  }
}

LinkModel measure_link(device::DeviceDriver& driver) {
  // D2H only: the lane (H2D) belongs to the driver thread, which has not started. Links are
  // near-symmetric, and the model only has to rank places, not predict copies to the percent.
  constexpr std::size_t kSmall = 4096, kLarge = std::size_t{4} << 20;
  try {
    std::vector<char> host(kLarge);
    void* block = driver.allocate(kLarge);
    auto best = [&](std::size_t bytes) {
      device::HostRegion r{host.data(), bytes, 1, bytes};
      double best_s = 1e30;
      for (int i = 0; i < 3; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        driver.copy_to_host(r, block);
        best_s = std::min(
            best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      return best_s;
    };
    best(kSmall);  // first use: mappings, queues
    double small = best(kSmall), large = best(kLarge);
    driver.deallocate(block);
    double bw = static_cast<double>(kLarge - kSmall) / std::max(large - small, 1e-9) / 1e9;
    return {small * 1e6, bw, "measured"};
  } catch (const std::exception&) {
    return {10.0, 10.0, "assumed"};  // a guess that ranks copies as neither free nor dear
  }
}

void ModelStore::save() noexcept {
  if (path_.empty()) return;
  try {
    models_.save(path_);
  } catch (const std::exception& e) {
    warn(std::string("performance models not saved: ") + e.what());
  }
}

bool shares_host_cores(const std::string& id) {
  try {
    for (const auto& d : all_devices())
      if (d->info().id == id)
        return d->info().kind == DeviceKind::OpenCL &&
               device_details(d->info()).value("device_type", std::string()).find("CPU") !=
                   std::string::npos;
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace conveyor::runtime::perfmodel
