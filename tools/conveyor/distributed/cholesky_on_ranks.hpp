#pragma once
// `conveyor cholesky` on several ranks (--grid, or started by mpirun). Built against MPI when the
// configure step found it (cholesky_on_ranks.cpp); else cholesky_on_ranks_none.cpp says so.
#include <nlohmann/json.hpp>
#include <string>

#include "../report.hpp"
#include "cholesky/cholesky_run.hpp"
#include "rank_jobs.hpp"

namespace conveyor::cli {

struct DistributedCholeskyRun {
  apps::cholesky::RunConfig config;  ///< n, block, precision, runtime, repeat, check, trace
  std::string grid;                  ///< "PxQ"; empty: the most square grid of the job's ranks
  OutputOptions output;
  nlohmann::json options;  ///< for the report
};

/// Initialises MPI, runs the distributed factorisation, prints on rank 0. Throws UsageError in a
/// build without MPI.
void run_distributed_cholesky(const DistributedCholeskyRun& run);

/// The same factorisation on a simulated cluster: every rank a thread of this process, on the
/// cluster's node platform, messages timed by its network model; prints as rank 0 of an mpirun
/// run does. UsageError in a build without MPI.
void run_simulated_cluster_cholesky(const DistributedCholeskyRun& run, const std::string& cluster);

}  // namespace conveyor::cli
