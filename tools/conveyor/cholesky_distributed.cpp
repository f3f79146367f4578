// conveyor cholesky --grid PxQ under mpirun: the tiled factorisation with 2D block-cyclic tiles,
// one runtime per rank, and the messages the ranks exchanged next to the closed form.
#include "cholesky_distributed.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cholesky/distributed.hpp"
#include "commands.hpp"
#include "common/block_size.hpp"
#include "conveyor/device.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/simulated_cluster.hpp"

namespace conveyor::cli {
namespace {

namespace ch = conveyor::apps::cholesky;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// "cuda:local" / "opencl:local" name the device whose index is the rank's rank on its node: one
// rank per GPU without a wrapper script. With more ranks on a node than devices of that kind, the
// ranks share them round-robin (2 ranks on a 1-GPU node both use cuda:0).
std::vector<std::string> resolve_local_devices(std::vector<std::string> devices, int local_rank) {
  for (auto& d : devices) {
    auto colon = d.find(':');
    if (colon == std::string::npos || d.substr(colon + 1) != "local") continue;
    const std::string kind = d.substr(0, colon + 1);
    int present = 0;
    for (const auto& device : all_devices()) present += device->info().id.rfind(kind, 0) == 0;
    d = kind + std::to_string(present > 0 ? local_rank % present : local_rank);
  }
  return devices;
}

nlohmann::json rank_rows(const ch::DistributedResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : r.ranks)
    rows.push_back({{"rank", s.rank},
                    {"tasks", s.tasks},
                    {"messages_sent", s.messages_sent},
                    {"bytes_sent", s.bytes_sent},
                    {"messages_received", s.messages_received},
                    {"bytes_received", s.bytes_received},
                    {"progress_cpu_s", s.progress_cpu_s},
                    {"progress_wall_s", s.progress_wall_s}});
  return rows;
}

void print(std::ostream& out, const nlohmann::json& row, const ch::DistributedResult& r) {
  auto counts = ch::task_counts(r.tiles);
  out << fmt::format(
      "Distributed Cholesky n = {}, block = {}: {} tiles per side, {} tasks, on {} ranks (grid {}, "
      "2D block-cyclic)\n\n",
      row["n"].get<int>(), row["block"].get<int>(), r.tiles,
      counts.potrf + counts.trsm + counts.syrk + counts.gemm, r.ranks.size(),
      row["grid"].get<std::string>());
  Table perf({"precision", "grid", "devices", "time s", "GFLOP/s", "residual", "check"});
  perf.add_row({row["precision"], row["grid"], row["devices"], fixed(r.time_s, 3),
                fixed(r.gflops, 2), r.checked ? fmt::format("{:.2e}", r.residual) : "-",
                row["check"]});
  perf.print(out);

  out << "\nMessages per rank (factorisation only; MB = 1e6 bytes)\n";
  Table ranks({"rank", "tasks", "sent", "MB sent", "received", "MB received", "progress CPU %"});
  for (const auto& s : r.ranks)
    ranks.add_row(
        {std::to_string(s.rank), std::to_string(s.tasks), std::to_string(s.messages_sent),
         fixed(s.bytes_sent / 1e6, 2), std::to_string(s.messages_received),
         fixed(s.bytes_received / 1e6, 2),
         fixed(s.progress_wall_s > 0 ? 100 * s.progress_cpu_s / s.progress_wall_s : 0, 1)});
  ranks.print(out);
  out << fmt::format(
      "\nCommunication: {} messages, {:.2f} MB; closed form for block-cyclic Cholesky: {} "
      "messages, {:.2f} MB ({})\n",
      r.messages, r.bytes / 1e6, r.expected.messages, r.expected.bytes / 1e6,
      r.volume_matches() ? "equal" : "DIFFERENT");
  if (r.checked)
    out << fmt::format("Check: {} more messages gathered L on rank 0\n", r.gather_messages);
}

}  // namespace

bool mpi_launched() { return MpiSession::launched(); }

namespace {

void run_on_ranks(const DistributedCholeskyRun& run, int rank, int size);
void run_rank(const DistributedCholeskyRun& run, const ch::RunConfig& config, ProcessGrid grid,
              Distributed& dist, const std::string& cluster);

// Without --block, the tile size suits every rank's workers together, as on one node.
void default_block(ch::RunConfig& config, int cpus, int ranks) {
  if (config.block > 0) return;
  int workers = (cpus + static_cast<int>(config.runtime.devices.size())) * ranks;
  config.block = apps::common::default_block(config.n, workers);
}

}  // namespace

bool is_cluster(const std::string& platform) { return is_cluster_file(platform); }

std::string cluster_node_file(const std::string& cluster) { return cluster_node_platform(cluster); }

void run_simulated_cluster_cholesky(const DistributedCholeskyRun& run, const std::string& cluster) {
  const int nodes = cluster_nodes(cluster);
  ProcessGrid grid = run.grid.empty() ? ProcessGrid::square(nodes) : ProcessGrid::parse(run.grid);
  if (grid.size() > nodes)
    throw UsageError(fmt::format("cholesky: --grid {} needs {} nodes, the cluster {} has {}",
                                 grid.to_string(), grid.size(), cluster, nodes));
  ch::RunConfig config = run.config;
  const std::string node = cluster_node_platform(cluster);
  const int cpus = config.runtime.cpus < 0 ? platform_host_cores(node) : config.runtime.cpus;
  const int gpus = config.runtime.platform_devices > 0
                       ? config.runtime.platform_devices
                       : static_cast<int>(platform_device_count(node));
  config.runtime.platform_devices = gpus;
  default_block(config, cpus + gpus, grid.size());
  ch::validate(config);
  SimulatedClusterOptions o;
  o.cluster = cluster;
  o.ranks = grid.size();
  o.runtime = config.runtime;
  o.runtime.platform.clear();
  o.runtime.trace = !config.trace.empty();
  run_simulated_cluster(o, [&](Distributed& dist) { run_rank(run, config, grid, dist, cluster); });
}

void run_distributed_cholesky(const DistributedCholeskyRun& run) {
  MpiSession mpi;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Errors that every rank raises alike (the same bad option, the failure the ranks agreed on, a
  // failed check) are printed once, by rank 0; anything else by the rank that has it.
  try {
    run_on_ranks(run, rank, size);
  } catch (const UsageError&) {
    if (rank != 0) throw QuietExit{2};
    throw;
  } catch (const ValidationError&) {
    if (rank != 0) throw QuietExit{1};
    throw;
  } catch (const Error& e) {
    if (rank != 0 && std::string_view(e.what()).starts_with("distributed run failed"))
      throw QuietExit{1};
    throw;
  }
}

namespace {

void run_on_ranks(const DistributedCholeskyRun& run, int rank, int size) {
  ProcessGrid grid = run.grid.empty() ? ProcessGrid::square(size) : ProcessGrid::parse(run.grid);
  if (grid.size() != size)
    throw UsageError(
        fmt::format("cholesky: --grid {} needs {} ranks, this job has {} (mpirun -np {})",
                    grid.to_string(), grid.size(), size, grid.size()));

  ch::RunConfig config = run.config;
  const int local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0);
  const int local_size = std::max(1, env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1));
  config.runtime.devices = resolve_local_devices(config.runtime.devices, local_rank);
  // Ranks that share a node share its cores: one pinned worker per core in every rank would put
  // several workers on each core and pin them all to the same ones.
  if (local_size > 1) {
    config.runtime.pin = false;
    if (config.runtime.cpus == -1)
      config.runtime.cpus =
          std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / local_size);
  }
  default_block(config,
                config.runtime.cpus < 0 ? static_cast<int>(std::thread::hardware_concurrency())
                                        : config.runtime.cpus,
                grid.size());
  ch::validate(config);
  RuntimeOptions options = config.runtime;
  options.trace = !config.trace.empty();
  Runtime rt(options);
  Distributed dist(rt);
  run_rank(run, config, grid, dist, {});
}

void run_rank(const DistributedCholeskyRun& run, const ch::RunConfig& config, ProcessGrid grid,
              Distributed& dist, const std::string& cluster) {
  const int rank = dist.rank();
  ch::DistributedConfig dc;
  dc.n = config.n;
  dc.block = config.block;
  dc.precision = config.precision;
  dc.grid = grid;
  dc.repeat = config.repeat;
  dc.check = config.check;
  ch::DistributedResult r = ch::run_distributed(dist, dc);
  if (!config.trace.empty()) dist.write_trace(config.trace);

  std::vector<std::string> failures;
  if (r.checked && !r.passed())
    failures.push_back(
        fmt::format("residual {:.3e} above the bound {:.3e}", r.residual, r.residual_bound));
  if (r.checked && !r.volume_matches())
    failures.push_back(fmt::format("{} messages / {} bytes sent, the closed form says {} / {}",
                                   r.messages, r.bytes, r.expected.messages, r.expected.bytes));
  if (rank == 0) {
    std::string devices = config.runtime.cpus != 0 ? "cpu" : "";
    for (const auto& d : config.runtime.devices) devices += (devices.empty() ? "" : "+") + d;
    if (!cluster.empty() && config.runtime.platform_devices > 0)
      devices += fmt::format("+{} simulated devices", config.runtime.platform_devices);
    nlohmann::json row = {
        {"n", config.n},
        {"block", config.block},
        {"tiles", r.tiles},
        {"precision", ch::to_string(config.precision)},
        {"grid", grid.to_string()},
        {"ranks", dist.size()},
        {"platform", cluster.empty() ? nlohmann::json(nullptr) : nlohmann::json(cluster)},
        {"simulated", !cluster.empty()},
        {"devices", devices},
        {"coherence", to_string(config.runtime.coherence)},
        {"scheduler", config.runtime.scheduler},
        {"gflops", r.gflops},
        {"time_s", r.time_s},
        {"repeat", config.repeat},
        {"messages", r.messages},
        {"bytes", r.bytes},
        {"closed_form_messages", r.expected.messages},
        {"closed_form_bytes", r.expected.bytes},
        {"gather_messages", r.gather_messages},
        {"residual", r.checked ? nlohmann::json(r.residual) : nlohmann::json(nullptr)},
        {"residual_bound", r.residual_bound},
        {"check", r.checked ? (failures.empty() ? "passed" : "failed") : "not run"},
        {"per_rank", rank_rows(r)},
    };
    nlohmann::json options_json = run.options;
    options_json["grid"] = grid.to_string();
    Report report("cholesky", options_json);
    report.add_result(row);
    report.add_note(
        "GFLOP/s = (n^3/3) / time / 1e9; time from a barrier before the first submit to the end of "
        "the collective wait_all, the slowest rank's");
    if (!cluster.empty())
      report.add_note("simulated cluster " + cluster +
                      ": every rank a thread of this process; times are virtual "
                      "(docs/simulated-clusters.md)");
    report.add_note(
        "messages: point-to-point tile messages of the factorisation; closed form in "
        "docs/distributed.md");
    emit(report, run.output, [&](std::ostream& out) { print(out, row, r); });
  }
  if (!failures.empty()) {
    std::string text;
    for (const auto& f : failures) text += (text.empty() ? "" : "; ") + f;
    throw ValidationError("cholesky: check failed: " + text);
  }
}

}  // namespace

}  // namespace conveyor::cli
