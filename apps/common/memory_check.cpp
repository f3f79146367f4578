#include "common/memory_check.hpp"

#include <cstdint>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"

namespace conveyor::apps::common {

void require_host_memory(std::string_view app, std::string_view size, double bytes) {
  std::uint64_t avail = host_topology().available_bytes;
  if (avail > 0 && bytes > static_cast<double>(avail))
    throw UsageError(std::string(app) + ": " + std::string(size) + " needs " +
                     std::to_string(static_cast<long long>(bytes / 1e6)) + " MB of memory, " +
                     std::to_string(avail / 1000000) + " MB are available");
}

}  // namespace conveyor::apps::common
