#include "platform_workers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::cli {

PlatformPick pick_platform_workers(const std::string& platform_file,
                                   const std::vector<std::string>& ids) {
  const std::vector<std::string> names = platform_device_ids(platform_file);
  const int count = static_cast<int>(names.size());
  PlatformPick pick;
  std::set<int> picked;
  for (const auto& id : ids) {
    if (id == "cpu" || id == "cpu:0") {
      pick.with_cpu = true;
    } else if (id == "all") {
      pick.with_cpu = true;
      for (int d = 0; d < count; ++d) picked.insert(d);
    } else if (auto it = std::find(names.begin(), names.end(), id); it != names.end()) {
      picked.insert(static_cast<int>(it - names.begin()));
    } else if (id.rfind("cuda:", 0) == 0 && id.size() > 5 &&
               id.find_first_not_of("0123456789", 5) == std::string::npos && id.size() < 9 &&
               std::stoi(id.substr(5)) < count) {
      picked.insert(std::stoi(id.substr(5)));
    } else {
      std::string known = "cpu, all";
      if (count == 1) known += ", cuda:0, " + names.front();
      if (count > 1)
        known += fmt::format(", cuda:0..cuda:{}, {}..{}", count - 1, names.front(), names.back());
      throw UsageError(fmt::format("--devices: '{}' is not a worker of platform {} ({})", id,
                                   platform_file, known));
    }
  }
  if (!picked.empty() && *picked.rbegin() + 1 != static_cast<int>(picked.size()))
    throw UsageError(fmt::format(
        "--devices: a simulated platform runs its first devices (cuda:0 up to some cuda:k); "
        "pick them from cuda:0 on ({} has {})",
        platform_file, count));
  pick.devices =
      picked.empty() ? RuntimeOptions::kPlatformHostOnly : static_cast<int>(picked.size());
  return pick;
}

}  // namespace conveyor::cli
