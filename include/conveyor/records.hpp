#pragma once
/// The records every result document carries: the machine, the build, the device details, and the
/// document's envelope. A measurement header, so its records are JSON (docs/architecture.md, "JSON
/// in the public headers").
///
/// Every result document Conveyor writes is {"conveyor": VERSION, "schema": 1, "command": ...,
/// "machine": {...}, "build": {...}, "options": {...}, "date": ..., "notes": [...], "results":
/// [{...}, ...]}; keys are snake_case and carry their unit (best_gbs, latency_us, bytes).
#include <nlohmann/json.hpp>
#include <string>

#include "conveyor/device.hpp"
#include "conveyor/topology.hpp"

namespace conveyor {

inline constexpr int kResultSchema = 1;

/// This machine: hostname, CPU model, packages, cores, NUMA nodes, last-level cache, memory, and
/// the devices found (id and name).
nlohmann::json machine_record();
/// This build: version, build type, compiler, backends and optional libraries compiled in.
nlohmann::json build_record();
/// A result document's envelope, without notes and results: conveyor (the version), schema,
/// command, machine, build, options, date (ISO 8601 UTC).
nlohmann::json result_envelope(const std::string& command, const nlohmann::json& options);
/// DeviceInfo::details (JSON text, so that the runtime's headers need no JSON library) as an
/// object; an empty object when the text is not one.
nlohmann::json device_details(const DeviceInfo& info);

/// The records of `conveyor devices --json`: a device (id, kind, name, platform, memory_bytes,
/// peak_gbs, compute_units, details), a NUMA node of this host, and each backend's status ("ok"
/// or why it is unavailable, by backend kind).
nlohmann::json device_record(const DeviceInfo& info);
nlohmann::json numa_node_record(const NumaNode& node);
nlohmann::json backends_record();

}  // namespace conveyor
