// Stand-in for builds without MPI: `cholesky --grid` and simulated clusters (which run the MPI
// layer's code) are usage errors, and nothing else changes.
#include <fstream>
#include <nlohmann/json.hpp>

#include "cholesky_distributed.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

bool mpi_launched() { return false; }

// Recognised here too, so that a cluster file gets the message below, not a platform file error.
bool is_cluster(const std::string& platform) {
  std::ifstream in(platform);
  auto doc = nlohmann::json::parse(in, nullptr, false);
  return doc.is_object() && doc.contains("network");
}

std::string cluster_node_file(const std::string&) {
  throw UsageError(
      "simulated clusters need a build with MPI (the distributed layer: install libopenmpi-dev, "
      "configure with CONVEYOR_WITH_MPI=AUTO or ON)");
}

void run_simulated_cluster_cholesky(const DistributedCholeskyRun&, const std::string& cluster) {
  cluster_node_file(cluster);
}

void run_distributed_cholesky(const DistributedCholeskyRun&) {
  throw UsageError(
      "cholesky: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

}  // namespace conveyor::cli
