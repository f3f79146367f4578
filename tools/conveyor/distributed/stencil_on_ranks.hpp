#pragma once
// `conveyor stencil` on several ranks (--grid, or started by mpirun) and on simulated clusters.
// Built against MPI when the configure step found it (stencil_on_ranks.cpp); else
// stencil_on_ranks_none.cpp says so.
#include <nlohmann/json.hpp>
#include <string>

#include "../report.hpp"
#include "rank_jobs.hpp"
#include "stencil/stencil_run.hpp"

namespace conveyor::cli {

struct DistributedStencilRun {
  apps::stencil::RunConfig config;  ///< n, block, sweeps, runtime, repeat, warmup, check, trace
  std::string grid;                 ///< "PxQ"; empty: the most square grid of the job's ranks
  OutputOptions output;
  nlohmann::json options;  ///< for the report
};

/// Initialises MPI, runs the distributed sweeps, prints on rank 0. Throws UsageError in a build
/// without MPI.
void run_distributed_stencil(const DistributedStencilRun& run);
/// The same sweeps on a simulated cluster (docs/simulated-clusters.md), every rank a thread of this
/// process; prints as rank 0 of an mpirun run does. UsageError in a build without MPI.
void run_simulated_cluster_stencil(const DistributedStencilRun& run, const std::string& cluster);

}  // namespace conveyor::cli
