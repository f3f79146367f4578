// Stand-in for builds without MPI: `cholesky --grid` is a usage error, and nothing else changes.
#include "cholesky_distributed.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

bool mpi_launched() { return false; }

void run_distributed_cholesky(const DistributedCholeskyRun&) {
  throw UsageError(
      "cholesky: --grid needs a build with MPI (install libopenmpi-dev, configure with "
      "CONVEYOR_WITH_MPI=AUTO or ON)");
}

}  // namespace conveyor::cli
