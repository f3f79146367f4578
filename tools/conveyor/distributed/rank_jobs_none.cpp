// Stand-in for builds without MPI: no process is an MPI rank, and simulated clusters (which run the
// MPI layer's code) are usage errors; the rest of rank_jobs.hpp is called only from code built
// with MPI.
#include <fstream>
#include <nlohmann/json.hpp>

#include "conveyor/error.hpp"
#include "rank_jobs.hpp"

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

}  // namespace conveyor::cli
