#include "runtime_cli_options.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/units.hpp"
#include "distributed/rank_jobs.hpp"
#include "platform_workers.hpp"
#include "report.hpp"

namespace conveyor::cli {
namespace {

void add_worker_options(CLI::App& command, RuntimeCliOptions& o, const RuntimeCommand& about) {
  command
      .add_option("--devices", o.devices,
                  "Workers: cpu (pinned CPU threads) and devices, e.g. cpu,opencl:0,cuda:0, or "
                  "all (default cpu; see conveyor devices); on a simulated node (--platform) its "
                  "workers, by cuda:N or the platform's ids (default: its host and every device)")
      ->delimiter(',')
      ->each([&o](const std::string&) { o.devices_given = true; })
      ->option_text("LIST");
  command.add_option("--sched", o.sched, std::string(about.sched))->option_text("NAME");
  command.add_option("--cpus", o.cpus, "CPU workers (default one per core)")->option_text("K");
  command
      .add_option(
          "--repeat", o.repeat,
          fmt::format("{}; the fastest is reported, with the median (default 1)", about.timed))
      ->option_text("R");
  command.add_flag("--no-pin", o.no_pin,
                   "CPU workers not pinned to cores: on a machine shared with other jobs the "
                   "system can move a worker off a busy core");
  command.add_flag("--no-warmup", o.no_warmup,
                   fmt::format("Skip the small warm-up {}", about.warmup));
  command.add_flag("--check", o.check, std::string(about.check));
  command
      .add_option("--device-memory", o.device_memory,
                  fmt::format("Memory each device may use for tiles, e.g. 8MiB (default: all of "
                              "it). Device memory is a cache of the host: {} (the tiles the queued "
                              "tasks need furthest ahead are evicted first, modified ones "
                              "written home first)",
                              about.too_big))
      ->option_text("SIZE");
  command
      .add_option("--run-ahead", o.run_ahead,
                  fmt::format("Tasks each device may enqueue behind predecessors still on its own "
                              "queues, ordered by the device instead of a host wake-up per "
                              "dependency (0 = off; default {}, measured best with one device; "
                              "with several, only while a device's queue holds less work than "
                              "its round trip to the host: docs/runtime.md)",
                              RuntimeOptions::kRunAheadDefaultDepth))
      ->each([&o](const std::string&) { o.run_ahead_given = true; })
      ->option_text("N");
  command.add_option("--trace", o.trace, "Write a Chrome trace (conveyor plot FILE -o gantt.png)")
      ->option_text("FILE");
}

void add_placement_options(CLI::App& command, RuntimeCliOptions& o, const RuntimeCommand& about) {
  command
      .add_option("--grid", o.grid,
                  fmt::format("Distribute over MPI ranks on a P x Q process grid, tiles {} (run "
                              "under mpirun -np P*Q; default under mpirun: the most square grid)",
                              about.layout))
      ->option_text("PxQ");
  const char* platform =
      about.simulated_node
          ? "A simulated platform (docs/simulation.md): a node file (platforms/node-*.json, "
            "4xV100-pcie3.json, ...) runs on that modelled node in virtual time; a cluster file "
            "(platforms/cluster-*.json) with --grid PxQ runs every rank in this process on "
            "modelled nodes and network (docs/simulated-clusters.md)"
          : "A simulated cluster file (docs/simulated-clusters.md): every rank in this process on "
            "modelled nodes and network, times virtual; with --grid PxQ";
  command.add_option("--platform", o.platform, platform)
      ->check(CLI::ExistingFile)
      ->option_text("FILE");
  command.add_flag(
      "--sim-run-kernels", o.sim_run_kernels,
      "With --platform: also run the kernels and move the data (small n; allows --check)");
}

UsageError usage(const RuntimeCommand& about, std::string_view text) {
  return UsageError(fmt::format("{}: {}", about.name, text));
}

RunPlace place_of(const RuntimeCliOptions& o, const RuntimeCommand& about) {
  if (!o.grid.empty()) ProcessGrid::parse(o.grid);  // a typo is refused before MPI starts
  const bool ranks = !o.grid.empty() || mpi_launched();
  if (o.platform.empty()) {
    if (o.sim_run_kernels) throw usage(about, "--sim-run-kernels needs --platform");
    return ranks ? RunPlace::ranks : RunPlace::this_node;
  }
  if (is_cluster(o.platform)) {
    if (mpi_launched())
      throw usage(about, "a simulated cluster runs in one process: leave mpirun out");
    return RunPlace::simulated_cluster;
  }
  if (!about.simulated_node)
    throw usage(about, fmt::format("--platform takes a simulated cluster file "
                                   "(docs/simulated-clusters.md); a single simulated node is not "
                                   "supported by {} yet",
                                   about.name));
  if (ranks)
    throw usage(about,
                "--platform with a node file simulates one node; it does not combine with --grid "
                "or mpirun (a cluster file does: docs/simulated-clusters.md)");
  return RunPlace::simulated_node;
}

// "cpu" in --devices means CPU workers and "all" the CPUs and every device; the runtime expands
// the rest (its "all" is every device). A simulated node's workers are picked among its own
// (platform_workers.hpp); a simulated cluster's nodes bring their devices.
void set_workers(const RuntimeCliOptions& o, const RuntimeCommand& about, RunPlace place,
                 RuntimeOptions& runtime) {
  bool with_cpu = false;
  if (place == RunPlace::simulated_node) {
    PlatformPick pick{true, static_cast<int>(platform_device_count(o.platform))};
    if (o.devices_given) pick = pick_platform_workers(o.platform, o.devices);
    with_cpu = pick.with_cpu;
    runtime.platform_devices = pick.devices;
  } else {
    std::vector<std::string> device_ids;
    for (const auto& d : o.devices) {
      if (d == "cpu" || d == "cpu:0" || d == "all") with_cpu = true;
      if (d != "cpu" && d != "cpu:0") device_ids.push_back(d);
    }
    runtime.devices = expand_devices(device_ids);
  }
  if (!with_cpu && o.cpus > 0) throw usage(about, "--cpus needs cpu in --devices");
  if (o.cpus == 0)
    throw usage(about, "--cpus must be positive (leave cpu out of --devices for none)");
  if (o.cpus < -1) throw usage(about, "--cpus must be positive");
  if (!o.platform.empty() && !runtime.devices.empty())
    throw usage(about, "--platform brings its own devices; give --devices cpu or nothing");
  runtime.cpus = with_cpu ? o.cpus : 0;
  runtime.pin = !o.no_pin;
}

std::uint64_t device_memory_limit(const RuntimeCliOptions& o, const RuntimeCommand& about,
                                  const RuntimeOptions& runtime) {
  if (o.device_memory.empty()) return 0;  // the devices' own memory
  const std::uint64_t limit = parse_bytes(o.device_memory, "--device-memory");
  if (limit == 0) throw usage(about, "--device-memory must be positive");
  if (runtime.devices.empty() && o.platform.empty())
    throw usage(about, "--device-memory needs a device in --devices");
  return limit;
}

}  // namespace

void add_runtime_options(CLI::App& command, RuntimeCliOptions& options,
                         const RuntimeCommand& about) {
  add_worker_options(command, options, about);
  add_placement_options(command, options, about);
}

ResolvedRuntime resolve_runtime(const RuntimeCliOptions& o, const RuntimeCommand& about) {
  ResolvedRuntime r;
  r.place = place_of(o, about);
  set_workers(o, about, r.place, r.runtime);
  r.runtime.device_memory_limit = device_memory_limit(o, about, r.runtime);
  if (!o.sched.empty()) r.runtime.scheduler = o.sched;
  if (o.run_ahead_given) {
    if (o.run_ahead < 0) throw usage(about, "--run-ahead must be 0 or more");
    r.runtime.run_ahead = o.run_ahead;
  }
  r.runtime.platform_run_kernels = o.sim_run_kernels;
  if (r.place == RunPlace::simulated_node) {
    r.node_platform = o.platform;
    r.runtime.platform = o.platform;
  } else if (r.place == RunPlace::simulated_cluster) {
    r.node_platform = cluster_node_file(o.platform);  // without MPI: says the build has none
  }
  return r;
}

std::string chosen_block_note(const nlohmann::json& row, int n) {
  return fmt::format(
      "block {} chosen for n = {} (with a device under the model scheduler, the tile the "
      "performance models say suits the fastest devices; else at least 4 sqrt(workers) tiles per "
      "side, at most 1024, or 2048 without CPU workers; --block sets it)",
      row["block"].get<int>(), n);
}

nlohmann::json report_options(const RuntimeCliOptions& o) {
  return {{"devices", join(o.devices)},
          {"scheduler", o.sched.empty() ? "auto" : o.sched},
          {"cpus", o.cpus},
          {"repeat", o.repeat},
          {"check", o.check},
          {"device_memory", o.device_memory},
          {"run_ahead", o.run_ahead_given ? nlohmann::json(o.run_ahead) : nlohmann::json("auto")},
          {"platform", o.platform},
          {"sim_run_kernels", o.sim_run_kernels},
          {"warmup", !o.no_warmup},
          {"pin", !o.no_pin}};
}

}  // namespace conveyor::cli
