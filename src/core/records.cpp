#include "conveyor/records.hpp"

#include <unistd.h>

#include "build_info.hpp"
#include "conveyor/topology.hpp"
#include "core/utc_time.hpp"

namespace conveyor {

namespace {

std::string hostname() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace

nlohmann::json machine_record() {
  const Topology& t = host_topology();
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& device : all_devices())
    devices.push_back({{"id", device->info().id}, {"name", device->info().name}});
  return {{"hostname", hostname()},
          {"cpu_model", t.cpu_model},
          {"packages", t.packages},
          {"cores", t.cores.size()},
          {"numa_nodes", t.numa_nodes.size()},
          {"llc_total_bytes", t.llc_total_bytes},
          {"memory_bytes", t.memory_bytes},
          {"devices", devices}};
}

nlohmann::json build_record() {
  return {{"version", kConveyorVersion},
          {"build_type", kBuildType},
          {"compiler", kCompiler},
          {"backends", kBackends},
          {"libraries", kLibraries}};
}

nlohmann::json result_envelope(const std::string& command, const nlohmann::json& options) {
  return {{"conveyor", kConveyorVersion}, {"schema", kResultSchema}, {"command", command},
          {"machine", machine_record()},  {"build", build_record()}, {"options", options},
          {"date", utc_now_iso8601()}};
}

nlohmann::json device_details(const DeviceInfo& info) {
  auto doc = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : nlohmann::json::object();
}

}  // namespace conveyor
