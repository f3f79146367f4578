#pragma once
// Which of a simulated platform's workers --devices picks (docs/simulation.md, "Picking workers"),
// as on the real machine: cpu = the host's cores, all = the cores and every device, and a device
// by the platform's id (h200:0) or by its CUDA name (cuda:N = the platform's N-th device; every
// simulated device has the CUDA kind).
#include <string>
#include <vector>

namespace conveyor::cli {

struct PlatformPick {
  bool with_cpu = false;
  /// RuntimeOptions::platform_devices: the platform's first `devices` devices, or
  /// RuntimeOptions::kPlatformHostOnly for none.
  int devices = 0;
};

/// Throws UsageError naming the entry that is not one of the platform's workers, and for a pick
/// that is not the platform's first devices (the runtime opens a platform's first k devices).
PlatformPick pick_platform_workers(const std::string& platform_file,
                                   const std::vector<std::string>& ids);

}  // namespace conveyor::cli
