// Stand-in for builds without MPI: `cholesky --grid` is a usage error, and nothing else changes.
#include "cholesky_distributed.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

bool mpi_launched() { return false; }

bool is_cluster(const std::string&) { return false; }

std::string cluster_node_file(const std::string& cluster) { return cluster; }

void run_simulated_cluster_cholesky(const DistributedCholeskyRun&, const std::string&) {
  throw UsageError("cholesky: simulated clusters need a build with MPI (the distributed layer)");
}

void run_distributed_cholesky(const DistributedCholeskyRun&) {
  throw UsageError(
      "cholesky: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

}  // namespace conveyor::cli
