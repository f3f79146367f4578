// The measurements of the CLI as functions returning its JSON document (the same envelope, options,
// notes and rows as `--json-out`), so that Python gets exactly what the CLI writes. The plan of a
// run (plan_stream, plan_probe, plan_pipeline), its rules, the measurement and the rows are the
// library's, shared with the CLI.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conveyor/calibration.hpp"
#include "conveyor/device.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/records.hpp"
#include "conveyor/sim.hpp"
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

std::string probe_json(const ProbeRequest& request) {
  ProbePlan plan = plan_probe(request);
  ProbeResults results;
  {
    nb::gil_scoped_release release;  // seconds of sweeps, no Python object touched
    results = run_probe(plan.devices, plan.options);
  }
  nlohmann::json doc =
      document("probe", probe_options_record(request, plan), probe_rows(results), results.notes);
  // As the CLI: the calibration written (its path, and a note), else null.
  std::filesystem::path written = save_probe_calibration(plan, results);
  doc["calibration"] = written.empty() ? nlohmann::json(nullptr) : nlohmann::json(written.string());
  if (!written.empty()) doc["notes"].push_back("calibration written to " + written.string());
  check_probe_results(results);
  return doc.dump();
}

/// `conveyor probe --show-calibration --json`: the file, checked against this machine.
std::string calibration_json(const std::string& path) {
  return Calibration::load(path.empty() ? default_calibration_path() : std::filesystem::path(path))
      .to_json()
      .dump();
}

std::string pipeline_json(const PipelineRequest& request) {
  PipelinePlan plan = plan_pipeline(request);
  PipelineSweep sweep;
  {
    nb::gil_scoped_release release;
    sweep = run_pipeline_sweep(plan.options);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : sweep.rows) rows.push_back(pipeline_row(r, plan.options));
  nlohmann::json doc = document("stream", pipeline_options_record(request, plan.options), rows,
                                pipeline_notes(plan, sweep));
  check_pipeline_rows(sweep);
  return doc.dump();
}

void add_probe(nb::module_& m) {
  m.def(
      "probe_json",
      [](std::string device, int repeats, bool quick, std::string max_size, bool apps, bool staging,
         std::string calibration, bool no_calibration) {
        return probe_json(
            {device, repeats, quick, max_size, apps, staging, calibration, no_calibration});
      },
      nb::arg("device"), nb::arg("repeats"), nb::arg("quick"), nb::arg("max_size"), nb::arg("apps"),
      nb::arg("staging"), nb::arg("calibration"), nb::arg("no_calibration"),
      "`conveyor probe --json-out`: the probe document for these options, as JSON text; writes "
      "the calibration file as the CLI does");
  m.def("calibration_json", &calibration_json, nb::arg("path"),
        "The calibration file at `path` (empty: the default path) as JSON text, checked against "
        "this machine");
}

void add_pipeline(nb::module_& m) {
  m.def(
      "pipeline_json",
      [](std::string mover, int depth, std::string block, std::string strategy, int copy_threads,
         bool no_overlap, bool calibrate, std::string calibration, std::string threads,
         std::string bind, std::optional<std::string> variant, std::string elements,
         std::string size, std::optional<std::string> kernels, std::optional<int> repeats) {
        PipelineRequest r;
        r.mover = mover;
        r.depth = depth;
        r.block = block;
        r.strategy = strategy;
        r.copy_threads = copy_threads;
        r.no_overlap = no_overlap;
        r.calibrate = calibrate;
        r.calibration = calibration;
        r.threads = threads;
        r.bind = bind;
        r.variant = variant;
        r.elements = elements;
        r.size = size;
        r.kernels = kernels;
        r.repeats = repeats;
        return pipeline_json(r);
      },
      nb::arg("mover"), nb::arg("depth"), nb::arg("block"), nb::arg("strategy"),
      nb::arg("copy_threads"), nb::arg("no_overlap"), nb::arg("calibrate"), nb::arg("calibration"),
      nb::arg("threads"), nb::arg("bind"), nb::arg("variant").none(), nb::arg("elements"),
      nb::arg("size"), nb::arg("kernels").none(), nb::arg("repeats").none(),
      "`conveyor stream --pipeline MOVER --json-out`: the staged-stream document, as JSON text");
}

std::string sim_sweep_json(const sim::SweepRequest& request) {
  sim::SweepPlan plan = sim::plan_sweep(request);
  {
    nb::gil_scoped_release release;  // the simulations run on threads of their own, for seconds
    sim::run_sweep(plan);
  }
  return document("sim_sweep", sim::sweep_options_record(plan), sim::sweep_rows(plan),
                  sim::sweep_notes(plan))
      .dump();
}

/// A machine field from Python's keywords; conveyor/sim.py passes every one, None as unset.
template <typename T>
void read_field(const nb::dict& machine, const char* key, T& field) {
  if (machine.contains(key) && !machine[key].is_none()) field = nb::cast<T>(machine[key]);
}

sim::MachineRequest machine_request(const nb::dict& d) {
  sim::MachineRequest m;
  read_field(d, "config", m.config_file);
  read_field(d, "flit_bytes", m.flit_bytes);
  read_field(d, "packet_bytes", m.packet_bytes);
  read_field(d, "router_buffer", m.router_buffer);
  read_field(d, "dma_queue", m.dma_queue);
  read_field(d, "dma_setup", m.dma_setup);
  read_field(d, "barrier_latency", m.barrier_latency);
  read_field(d, "mem_latency", m.mem_latency);
  read_field(d, "mem_bandwidth", m.mem_bandwidth);
  read_field(d, "local_memory", m.local_memory);
  read_field(d, "main_memory", m.main_memory);
  read_field(d, "max_cycles", m.max_cycles);
  read_field(d, "programs", m.programs);
  return m;
}

void add_sim(nb::module_& m) {
  m.def(
      "sim_sweep_json",
      [](std::vector<std::string> benchmarks, std::string nodes, std::string entries, int threads,
         nb::dict machine) {
        return sim_sweep_json({benchmarks, nodes, entries, threads, machine_request(machine)});
      },
      nb::arg("benchmarks"), nb::arg("nodes"), nb::arg("entries"), nb::arg("threads"),
      nb::arg("machine"),
      "`conveyor sim sweep --json-out`: the sweep document, as JSON text; `machine` holds the "
      "machine options by their CLI names (config, flit_bytes, ..., programs)");
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
  add_probe(m);
  add_pipeline(m);
  add_sim(m);
}

}  // namespace conveyor::python
