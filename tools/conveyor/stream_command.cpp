// conveyor stream: STREAM (Copy, Scale, Add, Triad, Dot) on the CPU and on every OpenCL and CUDA
// device, with a thread sweep, thread binding and memory placement on the CPU. The rules, the
// timing and the validation live in the library (run_stream); this file parses, plans and prints.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <string>

#include "commands.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
#include "progress_line.hpp"
#include "stream_pipeline.hpp"

namespace conveyor::cli {
namespace {

struct StreamCliOptions {
  StreamRequest request;
  OutputOptions output;
};

std::string percent_cell(const nlohmann::json& row) {
  return row["percent_of_peak"].is_null() ? "n/a" : fixed(row["percent_of_peak"], 1);
}

void print_header(std::ostream& out, const Report& report) {
  const nlohmann::json& rows = report.results();
  std::map<std::string, std::size_t> elements;
  for (const auto& row : rows) elements[row["device"]] = row["elements"];
  for (const auto& [device, n] : elements)
    out << fmt::format("{}: {} elements per array ({} each, {} for a, b, c)\n", device, n,
                       format_bytes(n * sizeof(double)), format_bytes(3 * n * sizeof(double)));
  for (const auto& row : rows) {
    if (row["device"] != "cpu") continue;
    std::string nodes;
    for (const auto& node : row["numa_nodes"]) nodes += (nodes.empty() ? "" : ",") + node.dump();
    out << fmt::format(
        "cpu arrays: {}, {} aligned, huge pages {} (THP mode {}), first touch by the "
        "computing threads\n",
        nodes.empty() ? "default NUMA policy" : "bound to NUMA node " + nodes,
        format_bytes(row["alignment_bytes"].get<std::uint64_t>()),
        row["huge_pages"].get<bool>() ? "requested" : "refused",
        row["thp_mode"].get<std::string>());
    break;
  }
  int counted = rows.empty() ? 0 : rows[0]["repetitions_counted"].get<int>();
  out << fmt::format(
      "Best of {} repetitions (the first of {} dropped); every run validated against gold "
      "values.\nGB/s = 1e9 B/s; bytes counted STREAM-style (no write-allocate): copy 16, scale "
      "16, add 24, triad 24, dot 16 B per element.\n\n",
      counted, counted + 1);
}

std::string group_name(const nlohmann::json& row) {
  std::string name =
      fmt::format("{} {}", row["device"].get<std::string>(), row["variant"].get<std::string>());
  if (row["device"] == "cpu")
    name += fmt::format(" ({} binding)", row["binding"].get<std::string>());
  return name;
}

// Seed 000's layout for a thread sweep: one row per thread count, one column per kernel (best
// GB/s), one block per device, variant and binding.
void print_sweep(std::ostream& out, const nlohmann::json& rows) {
  std::vector<std::string> groups, kernels;
  for (const auto& row : rows) {
    std::string group = group_name(row);
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    std::string kernel = row["kernel"];
    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end())
      kernels.push_back(kernel);
  }
  for (const auto& group : groups) {
    out << group << ", best GB/s:\n";
    std::vector<std::string> headers{"threads"};
    for (const auto& k : kernels) headers.push_back(k);
    Table table(headers);
    std::map<int, std::map<std::string, double>> by_threads;
    for (const auto& row : rows) {
      if (group_name(row) == group) by_threads[row["threads"]][row["kernel"]] = row["best_gbs"];
    }
    for (const auto& [threads, cells] : by_threads) {
      std::vector<std::string> line{std::to_string(threads)};
      for (const auto& k : kernels) line.push_back(cells.count(k) ? fixed(cells.at(k), 2) : "-");
      table.add_row(line);
    }
    table.print(out);
    out << '\n';
  }
}

void print_kernels(std::ostream& out, const nlohmann::json& rows) {
  Table table({"device", "variant", "threads", "kernel", "best GB/s", "median GB/s", "worst GB/s",
               "best time", "% of peak"});
  for (const auto& row : rows)
    table.add_row({row["device"], row["variant"], std::to_string(row["threads"].get<int>()),
                   row["kernel"], fixed(row["best_gbs"], 2), fixed(row["median_gbs"], 2),
                   fixed(row["worst_gbs"], 2), format_seconds(row["best_s"]), percent_cell(row)});
  table.print(out);
}

void run(const StreamCliOptions& o) {
  std::vector<std::string> notes;
  std::vector<StreamPlan> plans = plan_stream(o.request, notes);
  Report report("stream", stream_options_record(o.request, plans));
  bool sweep = false;
  {
    ProgressLine progress("stream", o.output.quiet);
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const StreamPlan& plan = plans[i];
      const StreamConfig& config = plan.options.config;
      progress.show(
          fmt::format("{} {}, {} thread{}", plan.device->info().id, to_string(config.variant),
                      config.threads, config.threads == 1 ? "" : "s"),
          {"runs", i, plans.size()});
      StreamRun result = run_stream(*plan.device, plan.options);
      for (const auto& r : result.results) report.add_result(r.to_json());
      sweep = sweep || config.threads != plans.front().options.config.threads;
    }
  }
  for (const auto& note : notes) report.add_note(note);
  report.add_note(kStreamBytesNote);
  emit(report, o.output, [&](std::ostream& out) {
    print_header(out, report);
    if (sweep)
      print_sweep(out, report.results());
    else
      print_kernels(out, report.results());
  });
}

constexpr const char* kStreamFooter =
    "STREAM rules: each array >= 4x the total last-level cache and >= 1M elements (smaller only\n"
    "with --allow-small); best of N repetitions excluding the first; every run checked against\n"
    "gold values (exit 1 on a mismatch). GB/s = 1e9 B/s; bytes counted STREAM-style, without\n"
    "write-allocate traffic: copy/scale 16, add/triad 24, dot 16 bytes per element.\n"
    "\n"
    "Examples:\n"
    "  conveyor stream                               all cores, one row per kernel\n"
    "  conveyor stream --threads 1-8                 thread sweep: one row per thread count\n"
    "  conveyor stream --variant both --kernels triad    standard vs tuned Triad\n"
    "  conveyor stream --size 1GiB --bind compact    1 GiB arrays, threads packed\n"
    "  conveyor stream --tier hbm                    arrays in HBM/MCDRAM (flat mode)\n"
    "  conveyor stream --device all --json-out s.json    every device; then conveyor plot "
    "s.json";

// Where the arrays live: their NUMA node or memory tier, and their pages.
void add_memory_options(CLI::App& command, StreamCliOptions& o) {
  auto* numa =
      command.add_option("--numa", o.request.numa, "Bind the CPU arrays to this NUMA node")
          ->check(CLI::NonNegativeNumber);
  command
      .add_option("--tier", o.request.tier,
                  "hbm or ddr: put the CPU arrays in that memory tier (machines with both)")
      ->excludes(numa);
  command.add_flag("--no-huge-pages", o.request.no_huge_pages,
                   "4 KiB pages instead of 2 MiB-aligned arrays with transparent huge pages");
}

}  // namespace

void add_stream_command(CLI::App& app) {
  auto o = std::make_shared<StreamCliOptions>();
  CLI::App* command = app.add_subcommand(
      "stream",
      "STREAM memory bandwidth (Copy, Scale, Add, Triad, Dot) on the CPU, OpenCL and CUDA devices");
  command->add_option("--device", o->request.device, "cpu, opencl:N, cuda:N or all (default cpu)");
  command->add_option("--threads", o->request.threads,
                      "CPU thread counts, e.g. 4, 1-8, 1,2,4,8; several give a sweep table "
                      "(default: one per core)");
  command->add_option("--bind", o->request.bind,
                      "CPU thread pinning: scatter (default), compact, none");
  command->add_option("--variant", o->request.variant,
                      "standard (plain loops, default), tuned (SIMD, non-temporal stores) or both");
  auto* elements = command->add_option(
      "--elements", o->request.elements,
      "Elements per array (K/M/G suffixes, powers of 1024); default: the STREAM minimum, 4x the "
      "last-level cache and at least 1M");
  command
      ->add_option("--size", o->request.size, "Bytes per array instead of --elements, e.g. 256MiB")
      ->excludes(elements);
  command->add_option("--repeats", o->request.repeats,
                      "Repetitions; the first is dropped, the best of the rest reported (default "
                      "20)");
  command->add_option("--kernels", o->request.kernels,
                      "Comma-separated kernels (default copy,scale,add,triad,dot)");
  command->add_option("--scalar", o->request.scalar, "STREAM's scalar (default 3)");
  command->add_flag("--allow-small", o->request.allow_small,
                    "Run arrays smaller than the STREAM size rule (the result notes say so)");
  add_memory_options(*command, *o);
  add_output_options(*command, o->output);
  add_quiet_option(*command, o->output);
  command->footer(kStreamFooter);
  auto pipeline = add_stream_pipeline_options(*command);  // --pipeline: stream_pipeline.cpp
  command->callback([o, pipeline, command] {
    if (pipeline->request.mover.empty()) return run(*o);
    run_stream_pipeline(
        *pipeline,
        {o->request.threads, o->request.bind, o->request.variant, o->request.elements,
         o->request.size, o->request.kernels, o->request.repeats, command->count("--repeats") > 0,
         command->count("--kernels") > 0, command->count("--variant") > 0, o->output});
  });
}

}  // namespace conveyor::cli
