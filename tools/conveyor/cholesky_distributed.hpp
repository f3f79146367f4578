#pragma once
// `conveyor cholesky` on several ranks (--grid, or started by mpirun). Built against MPI when the
// configure step found it (cholesky_distributed.cpp); else cholesky_distributed_none.cpp says so.
#include <nlohmann/json.hpp>
#include <string>

#include "cholesky/run.hpp"
#include "report.hpp"

namespace conveyor::cli {

struct DistributedCholeskyRun {
  apps::cholesky::RunConfig config;  ///< n, block, precision, runtime, repeat, check, trace
  std::string grid;                  ///< "PxQ"; empty: the most square grid of the job's ranks
  OutputOptions output;
  nlohmann::json options;  ///< for the report
};

/// Whether this process was started by an MPI launcher; false in a build without MPI, so that
/// such a build under mpirun runs the single-node command on each rank, as before.
bool mpi_launched();

/// Initialises MPI, runs the distributed factorisation, prints on rank 0. Throws UsageError in a
/// build without MPI.
void run_distributed_cholesky(const DistributedCholeskyRun& run);

/// Whether `platform` is a cluster file (docs/simulated-clusters.md); false in a build without
/// MPI, whose platform reader then explains what it expected.
bool is_cluster(const std::string& platform);
/// The node platform file a cluster file names.
std::string cluster_node_file(const std::string& cluster);
/// The same factorisation on a simulated cluster: every rank a thread of this process, on the
/// cluster's node platform, messages timed by its network model; prints as rank 0 of an mpirun
/// run does. UsageError in a build without MPI.
void run_simulated_cluster_cholesky(const DistributedCholeskyRun& run, const std::string& cluster);

}  // namespace conveyor::cli
