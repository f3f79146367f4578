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

}  // namespace conveyor::cli
