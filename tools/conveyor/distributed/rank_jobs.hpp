#pragma once
// What the CLI's distributed commands (`cholesky`, `qr` and `stencil` with --grid, under mpirun or
// on a simulated cluster) share: the job's start and its errors, the process grid, each rank's
// share of its node, and the per-rank message table of the report. This header needs no MPI, so
// that the commands' dispatchers (built with and without it) can include it; everything is defined
// in rank_jobs.cpp, which is built only with MPI, and is called only from code built with it, but
// mpi_launched, is_cluster and cluster_node_file, which rank_jobs_none.cpp defines without MPI.
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/process_grid.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor {
struct DistributedStats;  // conveyor/distributed.hpp, which needs MPI
class Distributed;
}  // namespace conveyor

namespace conveyor::cli {

/// Whether this process was started by an MPI launcher; false in a build without MPI, so that
/// such a build under mpirun runs the single-node command on each rank, as before.
bool mpi_launched();

/// Whether `platform` is a cluster file (docs/simulated-clusters.md); false in a build without
/// MPI, whose platform reader then explains what it expected.
bool is_cluster(const std::string& platform);
/// The node platform file a cluster file names; UsageError in a build without MPI.
std::string cluster_node_file(const std::string& cluster);

/// A run on a simulated cluster: its process grid (--grid, or the most square grid of all the
/// nodes; UsageError when the cluster has fewer nodes), each rank's runtime options (all the
/// node's devices unless platform_devices says fewer) and workers (for the default tile size).
struct ClusterJob {
  std::string cluster;
  ProcessGrid grid;
  RuntimeOptions runtime;
  int workers_per_rank = 1;
};
ClusterJob cluster_job(std::string_view command, const std::string& cluster,
                       const std::string& grid, RuntimeOptions runtime);
/// Runs body on every rank of the job, each a thread of this process (run_simulated_cluster).
void run_on_cluster(const ClusterJob& job, const std::function<void(Distributed&)>& body);

/// The report's note on a run on a simulated cluster: every rank a thread, times virtual.
std::string simulated_cluster_note(const std::string& cluster);

/// Initialises MPI (MpiSession) and runs body(rank, size) on every rank. Errors that every rank
/// raises alike (a bad option: UsageError, a failed check: ValidationError, a failure the ranks
/// agreed on: "distributed run failed ...") are printed once, by rank 0; the other ranks end with
/// the same exit code and no message (QuietExit). Anything else is printed by the rank that has it.
void run_on_every_rank(const std::function<void(int rank, int size)>& body);

/// The grid of a job of `size` ranks: `grid` ("PxQ") or, when empty, the most square grid of the
/// ranks. UsageError ("COMMAND: --grid 2x2 needs 4 ranks, this job has 2 (mpirun -np 4)") when the
/// sizes differ.
ProcessGrid job_grid(std::string_view command, const std::string& grid, int size);

/// This rank's share of its node: devices named "cuda:local" / "opencl:local" become the device
/// whose index is the rank's rank on its node (round-robin over the devices of that kind there);
/// with several ranks on the node, CPU workers are not pinned and, unless --cpus says otherwise,
/// each rank gets cores / ranks-on-the-node of them.
void share_node(RuntimeOptions& runtime);

/// The memory check of a run over MPI ranks, collective over dist's ranks: this rank needs
/// `bytes` (its tiles, the layer's buffers, rank 0's check), and the ranks on a node share its
/// available memory. When any rank's share does not fit, every rank throws the same UsageError
/// ("COMMAND: n = N needs ... MB on rank R ..."), so that none is left waiting.
void require_rank_memory(Distributed& dist, std::string_view command, int n, double bytes);

/// What each rank runs on, as the distributed result rows name it: "cpu", "cpu+opencl:0", and on a
/// simulated cluster "cpu+4 simulated devices".
std::string rank_devices_label(const RuntimeOptions& runtime);

/// The workers a rank's runtime starts: its CPU workers and its devices.
int rank_workers(const RuntimeOptions& runtime);

/// The tile size of a run over `ranks` ranks of `workers_per_rank` workers each: `block` when
/// given (positive), else the one-node rule (apps/common/block_size.hpp) for all of them together.
int job_block(int block, int n, int workers_per_rank, int ranks);

/// The CPU workers a runtime made with `runtime` starts (one per core when cpus < 0).
int cpu_workers(const RuntimeOptions& runtime);

/// The report's per-rank rows: rank, tasks, messages_sent, bytes_sent, messages_received,
/// bytes_received, progress_cpu_s, progress_wall_s.
nlohmann::json rank_rows(const std::vector<DistributedStats>& ranks);

/// The per-rank table of tasks, messages and bytes sent and received and the progress thread's CPU
/// use, with its caption ("Messages per rank (factorisation only; MB = 1e6 bytes)"; `scope` names
/// what was counted).
void print_rank_table(std::ostream& out, const std::vector<DistributedStats>& ranks,
                      std::string_view scope = "factorisation only");

}  // namespace conveyor::cli
