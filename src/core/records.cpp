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
  return {{"conveyor", kConveyorVersion},   {"schema", kResultSchema}, {"command", command},
          {"machine", machine_record()},    {"build", build_record()}, {"options", options},
          {"date", core::utc_now_iso8601()}};
}

nlohmann::json device_details(const DeviceInfo& info) {
  auto doc = nlohmann::json::parse(info.details, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : nlohmann::json::object();
}

nlohmann::json device_record(const DeviceInfo& info) {
  return {{"id", info.id},
          {"kind", to_string(info.kind)},
          {"name", info.name},
          {"platform", info.platform},
          {"memory_bytes", info.memory_bytes},
          {"peak_gbs", info.peak_gbs},
          {"compute_units", info.compute_units},
          {"details", device_details(info)}};
}

nlohmann::json numa_node_record(const NumaNode& node) {
  return {{"os_index", node.os_index},
          {"memory_bytes", node.memory_bytes},
          {"cpus", node.pus},
          {"subtype", node.subtype},
          {"high_bandwidth", node.high_bandwidth}};
}

nlohmann::json backends_record() {
  nlohmann::json status = nlohmann::json::object();
  for (const auto& backend : backends())
    status[std::string(to_string(backend->kind()))] =
        backend->status().empty() ? "ok" : backend->status();
  return status;
}

}  // namespace conveyor
