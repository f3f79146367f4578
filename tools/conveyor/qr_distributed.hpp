#pragma once
// `conveyor qr` on several ranks (--grid, or started by mpirun). Built against MPI when the
// configure step found it (qr_distributed.cpp); else qr_distributed_none.cpp says so.
#include <nlohmann/json.hpp>
#include <string>

#include "distributed_common.hpp"
#include "qr/run.hpp"
#include "report.hpp"

namespace conveyor::cli {

struct DistributedQrRun {
  apps::qr::RunConfig config;  ///< n, block, ib, precision, runtime, repeat, warmup, check, trace
  std::string grid;            ///< "PxQ"; empty: the most square grid of the job's ranks
  OutputOptions output;
  nlohmann::json options;  ///< for the report
};

/// Initialises MPI, runs the distributed factorisation, prints on rank 0. Throws UsageError in a
/// build without MPI.
void run_distributed_qr(const DistributedQrRun& run);

}  // namespace conveyor::cli
