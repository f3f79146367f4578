// Stand-in for builds without MPI: `stencil --grid` is a usage error, and nothing else changes.
#include "conveyor/error.hpp"
#include "stencil_on_ranks.hpp"

namespace conveyor::cli {

void run_distributed_stencil(const DistributedStencilRun&) {
  throw UsageError(
      "stencil: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

void run_simulated_cluster_stencil(const DistributedStencilRun&, const std::string& cluster) {
  cluster_node_file(cluster);  // says that the build has no MPI
}

}  // namespace conveyor::cli
