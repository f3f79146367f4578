#pragma once
/// The stencil on several ranks (`conveyor stencil --grid PxQ` under mpirun, or on a simulated
/// cluster): the same sweeps as run_sweeps (stencil_graph.hpp), submitted on every rank through a
/// Distributed layer, with the tiles and their halo strips distributed in blocks over a P x Q
/// process grid (block_grid.hpp). Each rank stores only its own tiles and strips (with the check,
/// rank 0 also the whole result grid, into which the tiles are gathered at the end). Every task
/// runs on the owner of its tile; only the strips on the ranks' borders travel, one message per
/// strip and sweep.
///
///   conveyor::MpiSession mpi;
///   conveyor::Runtime rt;
///   conveyor::Distributed dist(rt);
///   DistributedConfig c;  c.n = 4096;  c.block = 512;  c.grid = {2, 2};  c.check = true;
///   DistributedResult r = run_distributed(dist, c);   // same result on every rank
///   bool ok = r.passed();
#include <cstdint>
#include <vector>

#include "conveyor/distributed.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/progress.hpp"
#include "stencil/block_grid.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

struct DistributedConfig {
  int n = 4096;
  int block = 512;
  int sweeps = 20;
  Coefficients coefficients;
  ProcessGrid grid;     ///< p * q must equal the number of ranks
  int repeat = 1;       ///< runs of `sweeps` sweeps timed; the fastest is reported
  ProgressFn progress;  ///< hears of each timed run (rank 0 of a run given one)
  bool warmup = true;   ///< each rank runs 3 x 3 tiles alone first (not on a simulated cluster)
  bool check = false;   ///< gather the result on rank 0 and compare it with the reference there
};

struct DistributedResult {
  double time_s = 0;  ///< fastest run: barrier to the end of the collective wait_all
  std::vector<double> times_s;
  double median_time_s = 0;
  double gbs = 0;  ///< sweeps * sweep_bytes(n) / time_s, in 1e9 B/s
  int tiles = 0;   ///< tiles per side
  std::uint64_t tasks = 0;
  /// Per rank, for the fastest run (gather messages not included).
  std::vector<DistributedStats> ranks;
  std::uint64_t messages = 0, bytes = 0;  ///< sent by all ranks
  Communication expected;                 ///< the closed form (block_grid.hpp)
  bool checked = false;
  std::uint64_t mismatches = 0;  ///< cells that differ from the sequential reference
  double max_abs_diff = 0;
  std::uint64_t gather_messages = 0;  ///< messages of the check's gather to rank 0
  bool volume_matches() const { return messages == expected.messages && bytes == expected.bytes; }
  bool passed() const { return !checked || (mismatches == 0 && volume_matches()); }
};

/// Collective over dist's ranks. Throws UsageError for a bad configuration (on every rank),
/// Error when a task fails on any rank. A check that fails is not thrown: see passed().
DistributedResult run_distributed(Distributed& dist, const DistributedConfig& config);

}  // namespace conveyor::apps::stencil
