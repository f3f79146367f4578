// conveyor devices: the memory spaces and compute devices this machine has.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "conveyor/device.hpp"
#include "conveyor/records.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"

namespace conveyor::cli {
namespace {

struct DevicesOptions {
  OutputOptions output;
};

void print_devices(std::ostream& out, const Report& report) {
  const Topology& t = host_topology();
  out << fmt::format(
      "Host: {} ({} package{}, {} cores, {} hardware threads; topology from {})\n", t.cpu_model,
      t.packages, t.packages > 1 ? "s" : "", t.cores.size(),
      [&] {
        std::size_t n = 0;
        for (const auto& c : t.cores) n += c.pus.size();
        return n;
      }(),
      t.source);
  out << fmt::format("Last-level cache: L{} {} per instance, {} in total\n", t.llc_level,
                     format_bytes(t.llc_bytes), format_bytes(t.llc_total_bytes));
  out << fmt::format("Memory: {} total, {} available\n\n", format_bytes(t.memory_bytes),
                     format_bytes(t.available_bytes));

  Table numa({"NUMA node", "memory", "cpus", "tier"});
  for (const auto& node : t.numa_nodes) {
    std::string cpus = node.pus.empty() ? "none (memory only)"
                                        : fmt::format("{}-{} ({})", node.pus.front(),
                                                      node.pus.back(), node.pus.size());
    std::string tier = node.high_bandwidth    ? "high-bandwidth"
                       : node.subtype.empty() ? "ordinary"
                                              : node.subtype;
    numa.add_row({std::to_string(node.os_index), format_bytes(node.memory_bytes), cpus, tier});
  }
  numa.print(out);
  out << '\n';

  Table devices({"device", "name", "memory", "peak GB/s", "units", "platform"});
  for (const auto& row : report.results())
    devices.add_row({row["id"], row["name"], format_bytes(row["memory_bytes"].get<std::uint64_t>()),
                     row["peak_gbs"].get<double>() > 0 ? fixed(row["peak_gbs"], 1) : "unknown",
                     std::to_string(row["compute_units"].get<int>()), row["platform"]});
  devices.print(out);
  for (const auto& backend : backends())
    if (!backend->status().empty())
      out << fmt::format("{}: {}\n", to_string(backend->kind()), backend->status());
}

}  // namespace

void add_devices_command(CLI::App& app) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* command = app.add_subcommand(
      "devices", "List memory spaces and compute devices: cores, caches, NUMA nodes, OpenCL, CUDA");
  command->footer(
      "Examples:\n"
      "  conveyor devices\n"
      "  conveyor devices --json > devices.json\n"
      "Peak GB/s is the theoretical memory bandwidth where the driver reports it (1 GB/s = 1e9 "
      "B/s).");
  add_output_options(*command, options->output);
  command->callback([options] {
    Report report("devices", nlohmann::json::object());
    for (const auto& device : all_devices()) report.add_result(device_record(device->info()));
    nlohmann::json numa = nlohmann::json::array();
    for (const auto& node : host_topology().numa_nodes) numa.push_back(numa_node_record(node));
    report.section("numa_nodes") = numa;
    report.section("backends") = backends_record();
    emit(report, options->output, [&](std::ostream& out) { print_devices(out, report); });
  });
}

}  // namespace conveyor::cli
