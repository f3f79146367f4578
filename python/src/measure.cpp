// The measurements of the CLI as functions returning its JSON document (the same envelope, options,
// notes and rows as `--json-out`), so that Python gets exactly what the CLI writes. The plan of a
// stream run (plan_stream), its rules and the measurement itself (run_stream) are the library's,
// shared with the CLI.
#include <nanobind/stl/string.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/records.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "core.hpp"

namespace nb = nanobind;

namespace conveyor::python {
namespace {

/// A result document as the CLI's Report::to_json builds it.
nlohmann::json document(const std::string& command, const nlohmann::json& options,
                        const nlohmann::json& results, const std::vector<std::string>& notes) {
  nlohmann::json doc = result_envelope(command, options);
  doc["notes"] = notes;
  doc["results"] = results;
  return doc;
}

std::string devices_json() {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& device : all_devices()) rows.push_back(device_record(device->info()));
  nlohmann::json doc = document("devices", nlohmann::json::object(), rows, {});
  nlohmann::json numa = nlohmann::json::array();
  for (const auto& node : host_topology().numa_nodes) numa.push_back(numa_node_record(node));
  doc["numa_nodes"] = numa;
  doc["backends"] = backends_record();
  return doc.dump();
}

std::string stream_json(const StreamRequest& request) {
  std::vector<std::string> notes;
  std::vector<StreamPlan> plans = plan_stream(request, notes);
  nlohmann::json rows = nlohmann::json::array();
  {
    // The runs take seconds and touch no Python object: let other Python threads run meanwhile.
    nb::gil_scoped_release release;
    for (const StreamPlan& plan : plans)
      for (const auto& r : run_stream(*plan.device, plan.options).results)
        rows.push_back(r.to_json());
  }
  notes.push_back(kStreamBytesNote);
  return document("stream", stream_options_record(request, plans), rows, notes).dump();
}

}  // namespace

void add_measurements(nb::module_& m) {
  m.def("devices_json", &devices_json,
        "`conveyor devices --json`: the devices, NUMA nodes and backends, as JSON text");
  m.def(
      "stream_json",
      [](std::string device, std::string threads, std::string bind, std::string variant,
         std::string elements, std::string size, int repeats, std::string kernels, double scalar,
         bool allow_small, int numa, std::string tier, bool no_huge_pages) {
        return stream_json({device, threads, bind, variant, elements, size, repeats, kernels,
                            scalar, allow_small, numa, tier, no_huge_pages});
      },
      nb::arg("device"), nb::arg("threads"), nb::arg("bind"), nb::arg("variant"),
      nb::arg("elements"), nb::arg("size"), nb::arg("repeats"), nb::arg("kernels"),
      nb::arg("scalar"), nb::arg("allow_small"), nb::arg("numa"), nb::arg("tier"),
      nb::arg("no_huge_pages"),
      "`conveyor stream --json-out`: the STREAM document for these options, as JSON text");
}

}  // namespace conveyor::python
