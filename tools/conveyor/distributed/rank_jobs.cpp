// The parts of the distributed commands that do not depend on the application (built with MPI).
#include "rank_jobs.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "../commands.hpp"
#include "common/block_size.hpp"
#include "conveyor/device.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/simulated_cluster.hpp"
#include "conveyor/topology.hpp"

namespace conveyor::cli {
namespace {

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

}  // namespace

void run_on_every_rank(const std::function<void(int rank, int size)>& body) {
  MpiSession mpi;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    body(rank, size);
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

void require_rank_memory(Distributed& dist, std::string_view command, int n, double bytes) {
  const double available = static_cast<double>(host_topology().available_bytes);
  const int local_size = std::max(1, env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1));
  const bool fits = available <= 0 || bytes * local_size <= available;
  // The first rank that does not fit, and its need, agreed on by all (a rank that fits says -1).
  const double worst = dist.max_over_ranks(fits ? -1.0 : bytes);
  if (worst < 0) return;
  throw UsageError(fmt::format(
      "{}: n = {} needs {:.0f} MB on a rank, and {} rank{} share each node's {:.0f} MB available",
      command, n, worst / 1e6, local_size, local_size == 1 ? "" : "s", available / 1e6));
}

std::string rank_devices_label(const RuntimeOptions& runtime) {
  std::string devices = runtime.cpus != 0 ? "cpu" : "";
  for (const auto& d : runtime.devices) devices += (devices.empty() ? "" : "+") + d;
  if (runtime.platform_devices > 0)  // set for the ranks of a simulated cluster only
    devices += fmt::format("+{} simulated devices", runtime.platform_devices);
  return devices;
}

ProcessGrid job_grid(std::string_view command, const std::string& grid, int size) {
  ProcessGrid g = grid.empty() ? ProcessGrid::square(size) : ProcessGrid::parse(grid);
  if (g.size() != size)
    throw UsageError(fmt::format("{}: --grid {} needs {} ranks, this job has {} (mpirun -np {})",
                                 command, g.to_string(), g.size(), size, g.size()));
  return g;
}

void share_node(RuntimeOptions& runtime) {
  const int local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0);
  const int local_size = std::max(1, env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1));
  runtime.devices = resolve_local_devices(runtime.devices, local_rank);
  // Ranks that share a node share its cores: one pinned worker per core in every rank would put
  // several workers on each core and pin them all to the same ones.
  if (local_size > 1) {
    runtime.pin = false;
    if (runtime.cpus == -1)
      runtime.cpus =
          std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / local_size);
  }
}

int cpu_workers(const RuntimeOptions& runtime) {
  return runtime.cpus < 0 ? static_cast<int>(std::thread::hardware_concurrency()) : runtime.cpus;
}

int rank_workers(const RuntimeOptions& runtime) {
  return cpu_workers(runtime) + static_cast<int>(runtime.devices.size());
}

int job_block(int block, int n, int workers_per_rank, int ranks) {
  return block > 0 ? block : apps::common::default_block(n, workers_per_rank * ranks);
}

nlohmann::json rank_rows(const std::vector<DistributedStats>& ranks) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& s : ranks)
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

void print_rank_table(std::ostream& out, const std::vector<DistributedStats>& ranks,
                      std::string_view scope) {
  out << "\nMessages per rank (" << scope << "; MB = 1e6 bytes)\n";
  Table table({"rank", "tasks", "sent", "MB sent", "received", "MB received", "progress CPU %"});
  for (const auto& s : ranks)
    table.add_row(
        {std::to_string(s.rank), std::to_string(s.tasks), std::to_string(s.messages_sent),
         fixed(s.bytes_sent / 1e6, 2), std::to_string(s.messages_received),
         fixed(s.bytes_received / 1e6, 2),
         fixed(s.progress_wall_s > 0 ? 100 * s.progress_cpu_s / s.progress_wall_s : 0, 1)});
  table.print(out);
}

bool mpi_launched() { return MpiSession::launched(); }

bool is_cluster(const std::string& platform) { return is_cluster_file(platform); }

std::string cluster_node_file(const std::string& cluster) { return cluster_node_platform(cluster); }

ClusterJob cluster_job(std::string_view command, const std::string& cluster,
                       const std::string& grid, RuntimeOptions runtime) {
  const int nodes = cluster_nodes(cluster);
  ClusterJob job{cluster, grid.empty() ? ProcessGrid::square(nodes) : ProcessGrid::parse(grid),
                 std::move(runtime)};
  if (job.grid.size() > nodes)
    throw UsageError(fmt::format("{}: --grid {} needs {} nodes, the cluster {} has {}", command,
                                 job.grid.to_string(), job.grid.size(), cluster, nodes));
  const std::string node = cluster_node_platform(cluster);
  if (job.runtime.platform_devices == 0)
    job.runtime.platform_devices = static_cast<int>(platform_device_count(node));
  job.workers_per_rank = (job.runtime.cpus < 0 ? platform_host_cores(node) : job.runtime.cpus) +
                         job.runtime.platform_devices;
  return job;
}

std::string simulated_cluster_note(const std::string& cluster) {
  return "simulated cluster " + cluster +
         ": every rank a thread of this process; times are virtual (docs/simulated-clusters.md)";
}

void run_on_cluster(const ClusterJob& job, const std::function<void(Distributed&)>& body) {
  SimulatedClusterOptions o;
  o.cluster = job.cluster;
  o.ranks = job.grid.size();
  o.runtime = job.runtime;
  o.runtime.platform.clear();  // the cluster's node
  run_simulated_cluster(o, body);
}

}  // namespace conveyor::cli
