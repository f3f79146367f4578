// Stand-in for builds without MPI: `cholesky --grid` and simulated clusters (which run the MPI
// layer's code) are usage errors, and nothing else changes.
#include "cholesky_on_ranks.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void run_simulated_cluster_cholesky(const DistributedCholeskyRun&, const std::string& cluster) {
  cluster_node_file(cluster);  // says that the build has no MPI
}

void run_distributed_cholesky(const DistributedCholeskyRun&) {
  throw UsageError(
      "cholesky: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

}  // namespace conveyor::cli
