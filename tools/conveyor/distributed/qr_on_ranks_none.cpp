// Stand-in for builds without MPI: `qr --grid` is a usage error, and nothing else changes.
#include "conveyor/error.hpp"
#include "qr_on_ranks.hpp"

namespace conveyor::cli {

void run_distributed_qr(const DistributedQrRun&) {
  throw UsageError(
      "qr: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

void run_simulated_cluster_qr(const DistributedQrRun&, const std::string& cluster) {
  cluster_node_file(cluster);  // says that the build has no MPI
}

}  // namespace conveyor::cli
