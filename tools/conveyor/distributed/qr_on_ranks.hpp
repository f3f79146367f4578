#pragma once
// `conveyor qr` on several ranks (--grid, or started by mpirun). Built against MPI when the
// configure step found it (qr_on_ranks.cpp); else qr_on_ranks_none.cpp says so.
#include <nlohmann/json.hpp>
#include <string>

#include "../report.hpp"
#include "qr/qr_run.hpp"
#include "rank_jobs.hpp"

namespace conveyor::cli {

struct DistributedQrRun {
  apps::qr::RunConfig config;  ///< n, block, ib, precision, runtime, repeat, warmup, check, trace
  std::string grid;            ///< "PxQ"; empty: the most square grid of the job's ranks
  OutputOptions output;
  nlohmann::json options;  ///< for the report
  bool tree =
      false;  ///< a binary reduction tree over the process rows (qr::DistributedConfig::tree)
};

/// Initialises MPI, runs the distributed factorisation, prints on rank 0. Throws UsageError in a
/// build without MPI.
void run_distributed_qr(const DistributedQrRun& run);
/// The same factorisation on a simulated cluster (docs/simulated-clusters.md), every rank a thread
/// of this process; prints as rank 0 of an mpirun run does. UsageError in a build without MPI.
void run_simulated_cluster_qr(const DistributedQrRun& run, const std::string& cluster);

}  // namespace conveyor::cli
