// conveyor sim: the DMA-based manycore simulator of seed 002. `run` runs one program (a
// benchmark by name or the user's own ELF), `sweep` reproduces the seed's figures 4 and 5 (the
// five benchmarks x 16/64 nodes x 0/8/16/32 store-buffer entries, relative to 0 entries),
// `extensions` measures the two mechanisms of the seed's future work.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "conveyor/sim.hpp"
#include "conveyor/units.hpp"
#include "progress_line.hpp"

namespace conveyor::cli {
namespace {

using sim::SimConfig;
using sim::SimResult;

/// Options shared by every sim subcommand: the machine, from a JSON file and/or flags.
using MachineOptions = sim::MachineRequest;

void add_machine_options(CLI::App& cmd, MachineOptions& o, bool single) {
  cmd.add_option("--config", o.config_file,
                 "JSON file of machine parameters (keys as printed under \"options\"); flags "
                 "override it")
      ->option_text("FILE");
  if (single) {
    cmd.add_option("--mesh", o.mesh, "Mesh size WxH (default 4x4)")->option_text("WxH");
    cmd.add_option("--nodes", o.nodes, "Node count as a square mesh: 16 = 4x4, 64 = 8x8")
        ->check(CLI::Range(1, 1024));
    cmd.add_option("--entries", o.entries,
                   "Store-buffer entries: 0 = baseline (no buffer, no detector); the seed uses 8, "
                   "16, 32")
        ->check(CLI::Range(0, 1024));
    cmd.add_flag("--watch-get", o.watch_get,
                 "Extension: the core also runs past a blocking GET; loads and stores to bytes "
                 "not yet arrived wait");
    cmd.add_flag("--split-requests", o.split_requests,
                 "Extension: DMA-request stores wait in their own queue, so data stores behind "
                 "them drain");
  }
  cmd.add_option("--flit-bytes", o.flit_bytes, "Payload bytes per flit: 1, 2, 4, 8 (default 8)");
  cmd.add_option("--packet-bytes", o.packet_bytes, "Largest packet payload in bytes (default 128)");
  cmd.add_option("--router-buffer", o.router_buffer,
                 "Router input buffer depth in flits (default 4)");
  cmd.add_option("--dma-queue", o.dma_queue, "DMA commands queued per node (default 4)");
  cmd.add_option("--dma-setup", o.dma_setup,
                 "Cycles from a DMA command to its first flit (default 0)")
      ->check(CLI::Range(0, 100000));
  cmd.add_option("--barrier-latency", o.barrier_latency,
                 "Cycles from the last barrier arrival to release; -1 = W+H (default 0)");
  cmd.add_option("--mem-latency", o.mem_latency, "Main-memory latency in cycles (default 100)");
  cmd.add_option("--mem-bandwidth", o.mem_bandwidth, "Main-memory bytes per cycle (default 8)");
  cmd.add_option("--local-memory", o.local_memory, "Local memory per node (default 512K)")
      ->option_text("SIZE");
  cmd.add_option("--main-memory", o.main_memory, "Main memory size (default 16M)")
      ->option_text("SIZE");
  cmd.add_option("--max-cycles", o.max_cycles,
                 "Stop with an error after this many cycles (default 200000000)");
  cmd.add_option("--programs", o.programs,
                 "Folder of built programs (default: $CONVEYOR_SIM_PROGRAMS, else the build tree)")
      ->option_text("DIR");
}

std::string program_label(const std::string& program) {
  std::string name = program.substr(program.find_last_of('/') + 1);
  if (name.ends_with(".elf")) name.resize(name.size() - 4);
  return name;
}

nlohmann::json result_row(const std::string& benchmark, const SimConfig& c, const SimResult& r,
                          bool per_node) {
  nlohmann::json row{{"benchmark", benchmark},
                     {"nodes", c.nodes()},
                     {"mesh", fmt::format("{}x{}", c.mesh_width, c.mesh_height)},
                     {"entries", c.store_buffer_entries}};
  row.update(sim::to_json(r, per_node));
  return row;
}

std::string percent(double ratio) { return fixed(100.0 * ratio, 1); }

// ---- run -------------------------------------------------------------------------------------

struct RunOptions {
  std::string program;
  MachineOptions machine;
  bool per_node = false;
  bool quiet = false;
  OutputOptions output;
};

// The table of one run: the machine, cycles, stalls by cause, store-buffer use, the network and the
// simulator's own speed (`row`: the run's result row).
void print_run(std::ostream& out, const std::string& label, const SimConfig& config,
               const SimResult& r, const nlohmann::json& row) {
  Table table({"quantity", "value"});
  table.add_row({"program", label});
  table.add_row({"mesh", fmt::format("{}x{} ({} nodes)", config.mesh_width, config.mesh_height,
                                     config.nodes())});
  table.add_row({"store-buffer entries", std::to_string(config.store_buffer_entries) +
                                             (config.watch_get ? " +watch-get" : "") +
                                             (config.split_requests ? " +split-requests" : "")});
  table.add_row({"cycles (region of interest)", std::to_string(r.cycles)});
  table.add_row({"cycles (whole run)", std::to_string(r.total_cycles)});
  table.add_row({"instructions (all nodes)", std::to_string(r.instructions)});
  table.add_row({"stall cycles (sum over nodes)", std::to_string(r.stall_cycles)});
  for (int c = 0; c < static_cast<int>(sim::StallCause::kCount); ++c)
    table.add_row({fmt::format("  {}", sim::stall_cause_name(static_cast<sim::StallCause>(c))),
                   std::to_string(r.stalls[c])});
  table.add_row({"store buffer mean / max occupancy",
                 fixed(row["sb_mean_occupancy"].get<double>(), 3) + " / " +
                     std::to_string(row["sb_max_occupancy"].get<uint64_t>())});
  table.add_row(
      {"% node-cycles: stores buffered during PUT", percent(row["sb_put_fraction"].get<double>())});
  table.add_row({"  data stores / DMA-request stores",
                 percent(row["sb_put_data_fraction"].get<double>()) + " / " +
                     percent(row["sb_put_request_fraction"].get<double>())});
  table.add_row({"network flits", std::to_string(r.network_flits)});
  if (!r.router_flits.empty()) {
    auto busiest = std::max_element(r.router_flits.begin(), r.router_flits.end());
    table.add_row({"busiest router (flits forwarded)",
                   fmt::format("{} ({})", busiest - r.router_flits.begin(), *busiest)});
  }
  table.add_row({"simulated instructions/s (host)",
                 fixed(row["instructions_per_second"].get<double>() / 1e6, 1) + " M"});
  table.add_row({"simulated instructions/CPU-s (host)",
                 fixed(row["instructions_per_cpu_second"].get<double>() / 1e6, 1) + " M"});
  table.add_row(
      {"simulated cycles/s (host)", fixed(row["cycles_per_second"].get<double>() / 1e6, 2) + " M"});
  table.print(out);
}

void run_command(const RunOptions& o) {
  SimConfig config = sim::build_config(o.machine);
  std::string path = sim::resolve_program(o.program, o.machine.programs);
  std::ostringstream console;
  SimResult r = sim::run_elf(config, path, &console);
  std::string label = program_label(path);
  nlohmann::json options = sim::to_json(config);
  options["program"] = path;
  Report report("sim", options);
  report.add_result(result_row(label, config, r, o.per_node));
  nlohmann::json lines = nlohmann::json::array();
  {
    std::istringstream in(console.str());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  report.section("console") = lines;
  if (!o.output.json && !o.output.csv && !o.quiet) std::cout << console.str();
  emit(report, o.output,
       [&](std::ostream& out) { print_run(out, label, config, r, report.results()[0]); });
  if (!r.passed) {
    for (size_t i = 0; i < r.nodes.size(); ++i)
      if (r.nodes[i].exit_code != 0)
        throw Error(
            fmt::format("sim: {}: node {} exited with code {}", label, i, r.nodes[i].exit_code));
  }
}

// ---- sweep and extensions -------------------------------------------------------------------

using sim::SimJob;

struct SweepOptions {
  sim::SweepRequest request;
  OutputOptions output;
};

void sweep_command(const SweepOptions& o) {
  sim::SweepPlan plan = sim::plan_sweep(o.request);
  {
    ProgressLine progress("sim sweep", o.output.quiet);
    plan.progress = progress.step_fn();
    sim::run_sweep(plan);
  }
  Report report("sim_sweep", sim::sweep_options_record(plan));
  for (auto& row : sim::sweep_rows(plan)) report.add_result(std::move(row));
  for (const auto& note : sim::sweep_notes(plan)) report.add_note(note);
  emit(report, o.output, [&](std::ostream& out) {
    Table table({"benchmark", "nodes", "entries", "cycles", "rel. cycles %", "stall cycles",
                 "rel. stalls %", "buffered in PUT %", "data %", "DMA-req %"});
    for (const auto& row : report.results())
      table.add_row({row["benchmark"], std::to_string(row["nodes"].get<int>()),
                     std::to_string(row["entries"].get<int>()),
                     std::to_string(row["cycles"].get<uint64_t>()),
                     percent(row["relative_cycles"].get<double>()),
                     std::to_string(row["stall_cycles"].get<uint64_t>()),
                     percent(row["relative_stalls"].get<double>()),
                     fixed(100 * row["sb_put_fraction"].get<double>(), 2),
                     fixed(100 * row["sb_put_data_fraction"].get<double>(), 2),
                     fixed(100 * row["sb_put_request_fraction"].get<double>(), 2)});
    table.print(out);
  });
}

struct ExtensionOptions {
  std::vector<std::string> benchmarks;
  int nodes = 64;
  int entries = 32;
  int threads = 0;
  MachineOptions machine;
  OutputOptions output;
};

// Every benchmark on every variant of `base`: without a store buffer, with one, and with the
// extensions.
std::vector<SimJob> extension_jobs(const ExtensionOptions& o, const SimConfig& base) {
  struct Variant {
    const char* name;
    int entries;
    bool watch, split;
  };
  const Variant variants[] = {{"baseline", 0, false, false},
                              {"store-buffer", o.entries, false, false},
                              {"+watch-get", o.entries, true, false},
                              {"+split-requests", o.entries, false, true},
                              {"+both", o.entries, true, true}};
  std::vector<SimJob> jobs;
  std::vector<std::string> benchmarks = o.benchmarks;
  if (benchmarks.empty()) {
    // The seed's five use only blocking PUTs; bitonic_get pulls with GETs, what --watch-get is for.
    benchmarks = sim::benchmark_names();
    benchmarks.push_back("bitonic_get");
  }
  for (const std::string& b : benchmarks)
    for (const Variant& v : variants) {
      SimJob job{b, base, v.name, {}};
      job.config.store_buffer_entries = v.entries;
      job.config.watch_get = v.watch;
      job.config.split_requests = v.split;
      sim::validate(job.config);
      jobs.push_back(job);
    }
  return jobs;
}

// A job's row, its cycles and stalls relative to its benchmark's baseline.
nlohmann::json extension_row(const std::vector<SimJob>& jobs, const SimJob& job) {
  const SimJob& b = *std::find_if(jobs.begin(), jobs.end(), [&](const SimJob& j) {
    return j.benchmark == job.benchmark && j.variant == std::string("baseline");
  });
  const SimResult& r = job.result;
  nlohmann::json row{
      {"benchmark", job.benchmark},
      {"nodes", job.config.nodes()},
      {"entries", job.config.store_buffer_entries},
      {"variant", job.variant},
      {"cycles", r.cycles},
      {"relative_cycles", double(r.cycles) / double(b.result.cycles)},
      {"stall_cycles", r.stall_cycles},
      {"relative_stalls",
       b.result.stall_cycles ? double(r.stall_cycles) / double(b.result.stall_cycles) : 0.0}};
  row["stalls"] = sim::to_json(r, false)["stalls"];
  return row;
}

void extensions_command(const ExtensionOptions& o) {
  SimConfig base = sim::build_config(o.machine);
  std::tie(base.mesh_width, base.mesh_height) = sim::square_mesh(o.nodes);
  if (o.entries < 1) throw UsageError("sim extensions: --entries must be at least 1");
  std::vector<SimJob> jobs = extension_jobs(o, base);
  const int threads = o.threads > 0 ? o.threads : sim::default_sweep_threads();
  {
    ProgressLine progress("sim extensions", o.output.quiet);
    sim::run_jobs(jobs, threads, o.machine.programs, progress.step_fn());
  }
  nlohmann::json options = sim::to_json(base);
  options["entries"] = o.entries;
  Report report("sim_extensions", options);
  for (const SimJob& job : jobs) report.add_result(extension_row(jobs, job));
  emit(report, o.output, [&](std::ostream& out) {
    Table table(
        {"benchmark", "variant", "cycles", "rel. cycles %", "stall cycles", "rel. stalls %"});
    for (const auto& row : report.results())
      table.add_row({row["benchmark"], row["variant"],
                     std::to_string(row["cycles"].get<uint64_t>()),
                     percent(row["relative_cycles"].get<double>()),
                     std::to_string(row["stall_cycles"].get<uint64_t>()),
                     percent(row["relative_stalls"].get<double>())});
    table.print(out);
  });
}

void add_run_command(CLI::App& sim) {
  auto run_opts = std::make_shared<RunOptions>();
  auto* run =
      sim.add_subcommand("run", "Run one program on every node and report cycles and stalls");
  run->add_option("program", run_opts->program,
                  "A benchmark (pipeline, stencil, alltoall, cannon, bitonic, hello, dmatest) or "
                  "a path to an RV32IM ELF file")
      ->required();
  add_machine_options(*run, run_opts->machine, true);
  run->add_flag("--per-node", run_opts->per_node, "Per-node statistics in the JSON output");
  run->add_flag("--quiet", run_opts->quiet, "Do not print the program's console output");
  add_output_options(*run, run_opts->output);
  run->footer(
      "Console lines are prefixed with [node]. The run fails (exit 1) when a node exits non-zero;\n"
      "a misbehaving program stops with one line naming node, pc and cause.\n"
      "Examples:\n"
      "  conveyor sim run hello --mesh 2x2\n"
      "  conveyor sim run alltoall --nodes 64 --entries 16 --json\n"
      "  conveyor sim run prog.elf --config machine.json --max-cycles 1e7");
  run->callback([run_opts] { run_command(*run_opts); });
}

void add_sweep_command(CLI::App& sim) {
  auto sweep_opts = std::make_shared<SweepOptions>();
  auto* sweep = sim.add_subcommand(
      "sweep",
      "Benchmarks x node counts x store-buffer sizes, relative to 0 entries (figures 4, 5)");
  sweep
      ->add_option("--benchmarks", sweep_opts->request.benchmarks, "Benchmarks (default: all five)")
      ->delimiter(',');
  sweep->add_option("--nodes", sweep_opts->request.nodes,
                    "Node counts, square meshes (default 16,64)");
  sweep->add_option("--entries", sweep_opts->request.entries,
                    "Store-buffer sizes (default 0,8,16,32)");
  sweep
      ->add_option("--threads", sweep_opts->request.threads,
                   "Host threads running configurations side by side (default: all cores)")
      ->check(CLI::Range(1, 256));
  add_machine_options(*sweep, sweep_opts->request.machine, false);
  add_output_options(*sweep, sweep_opts->output);
  add_quiet_option(*sweep, sweep_opts->output);
  sweep->footer(
      "Rows {benchmark, nodes, entries, cycles, relative_cycles, stall_cycles, relative_stalls}:\n"
      "relative_* are ratios to the 0-entry run. Identical options give identical figures.\n"
      "Examples:\n"
      "  conveyor sim sweep\n"
      "  conveyor sim sweep --benchmarks pipeline,alltoall --nodes 64 --json-out s.json\n"
      "  conveyor sim sweep --dma-setup 64    a DMA that starts 64 cycles after its command:\n"
      "                                       gains that grow with the entries (docs/sim.md)");
  sweep->callback([sweep_opts] { sweep_command(*sweep_opts); });
}

void add_extensions_command(CLI::App& sim) {
  auto ext_opts = std::make_shared<ExtensionOptions>();
  auto* ext = sim.add_subcommand(
      "extensions", "The seed's future work: watching GET destinations, split request queue");
  ext->add_option("--benchmarks", ext_opts->benchmarks,
                  "Benchmarks (default: the five and bitonic_get)")
      ->delimiter(',');
  ext->add_option("--nodes", ext_opts->nodes, "Node count, a square (default 64)");
  ext->add_option("--entries", ext_opts->entries, "Store-buffer entries (default 32)");
  ext->add_option("--threads", ext_opts->threads, "Host threads (default: all cores)")
      ->check(CLI::Range(1, 256));
  add_machine_options(*ext, ext_opts->machine, false);
  add_output_options(*ext, ext_opts->output);
  add_quiet_option(*ext, ext_opts->output);
  ext->footer(
      "Variants: baseline (0 entries), store-buffer (the seed's proposal), +watch-get, "
      "+split-requests, +both.\nExample:\n  conveyor sim extensions --nodes 16 --entries 16");
  ext->callback([ext_opts] { extensions_command(*ext_opts); });
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto* sim = app.add_subcommand(
      "sim",
      "Simulate a DMA-based manycore (seed 002): RV32IM nodes with local memories, DMA and a mesh, "
      "with or without the store buffer that lets a core run past a blocking DMA PUT");
  sim->require_subcommand(1);
  sim->footer(
      "Examples:\n"
      "  conveyor sim run pipeline --nodes 64 --entries 32   one benchmark, one machine\n"
      "  conveyor sim run ./my.elf --mesh 4x2                your own program (see docs/sim.md)\n"
      "  conveyor sim sweep --json-out sweep.json            the seed's figures 4 and 5\n"
      "  conveyor plot sweep.json -o sweep.png               ... drawn\n"
      "  conveyor sim extensions                             GET watching, split request queue");
  add_run_command(*sim);
  add_sweep_command(*sim);
  add_extensions_command(*sim);
}

}  // namespace conveyor::cli
