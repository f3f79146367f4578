// The runtime's decisions made once, from RuntimeOptions: the scheduler that "auto" becomes, the
// devices "all" expands to, and the bound on submitted tasks. Tools and apps ask these rather than
// decide (docs/architecture.md, "Decisions made once").
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

std::string resolve_scheduler(const RuntimeOptions& o, bool extra_devices) {
  if (o.scheduler != "auto") return o.scheduler;
  // A simulated node of CPUs only (a cluster's CPU nodes) has no device to offload to.
  bool devices = !o.devices.empty() || extra_devices ||
                 (!o.platform.empty() && platform_device_count(o.platform) > 0);
  return !devices ? "eager" : o.offload.empty() ? "model" : "offload";
}

std::vector<std::string> expand_devices(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  auto add = [&](const std::string& id) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  for (const auto& id : ids) {
    if (id == "all") {
      for (const auto& d : all_devices())
        if (d->info().kind != DeviceKind::Cpu) add(d->info().id);
    } else if (id == "cpu" || id == "cpu:0") {
      throw UsageError(
          "'cpu' is not a runtime device: the CPUs are the runtime's workers "
          "(RuntimeOptions::cpus)");
    } else {
      add(id);
    }
  }
  return out;
}

std::uint64_t resolve_max_submitted(std::uint64_t given) {
  if (given > 0) return given;
  if (const char* env = std::getenv("CONVEYOR_MAX_SUBMITTED"); env && *env) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (*end != '\0' || v == 0)
      throw UsageError(
          fmt::format("CONVEYOR_MAX_SUBMITTED must be a positive number of tasks, got '{}'", env));
    return v;
  }
  return std::max<std::uint64_t>(100'000, host_topology().memory_bytes / (256 * 1024));
}

std::string resolved_scheduler(const RuntimeOptions& options) {
  return resolve_scheduler(options, false);
}

}  // namespace conveyor
