#pragma once
// The runtime's performance models for one run: read from the models file at start (a file that
// cannot be used is reported in one line and ignored), the link model of every device set up
// (the probe's calibration where it has the link, else the measurement cached in the models file,
// else a short measurement now), and written back at the end. On a simulated platform the
// platform's own models answer instead, and no file is read or written.
#include <filesystem>
#include <string>
#include <vector>

#include "device/driver.hpp"
#include "runtime/perfmodel/models.hpp"

namespace conveyor::runtime::perfmodel {

class ModelStore {
 public:
  /// `path`: the models file; empty = default_models_path(); "none" = in memory only.
  /// `calibration`: the probe's file; empty = default_calibration_path().
  ModelStore(const std::string& path, const std::string& calibration,
             const std::vector<device::DeviceDriver*>& drivers);
  PerfModels& models() { return models_; }
  /// Writes the models file (when there is one); a failure is one line on stderr, not an error:
  /// losing the models costs a recalibration, not the run.
  void save() noexcept;
  const std::filesystem::path& path() const { return path_; }

 private:
  /// A simulated platform: predictions from its models (PerfModels::set_oracle), nothing read
  /// or written (the virtual times are not this machine's). `costs` outlives the store (the
  /// drivers own their platform).
  void use_platform(const device::ModelledCosts& costs,
                    const std::vector<device::DeviceDriver*>& drivers);
  void setup_links(const std::string& calibration,
                   const std::vector<device::DeviceDriver*>& drivers);

  PerfModels models_;
  std::filesystem::path path_;  // empty: not persisted
};

/// Whether the device `id` computes on the host's own cores (an OpenCL CPU device, e.g. PoCL).
bool shares_host_cores(const std::string& id);

/// Latency and bandwidth of copies from `driver` to the host, timed now (a few small copies).
LinkModel measure_link(device::DeviceDriver& driver);

}  // namespace conveyor::runtime::perfmodel
