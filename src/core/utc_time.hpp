#pragma once
// The current time as ISO 8601 UTC text ("2026-11-23T06:54:23Z"), for result documents and the
// files Conveyor writes (calibration, performance models).
#include <chrono>
#include <ctime>
#include <string>

namespace conveyor::core {

inline std::string utc_now_iso8601() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace conveyor::core
