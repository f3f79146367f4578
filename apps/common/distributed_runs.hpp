#pragma once
/// The timed runs of the apps' distributed factorisations (cholesky, qr --grid), on MPI ranks or a
/// simulated cluster: each run registers the tiles, waits at a barrier, submits the graph and
/// waits for it; its time is the slowest rank's from the barrier to the end of the collective
/// wait_all, on the runtime's clock (virtual on a simulated cluster). Header-only: only the
/// distributed apps include it (it needs the MPI layer).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/progress.hpp"

namespace conveyor::apps::common {

/// The checks every distributed app makes of its run before it starts (on every rank alike):
/// UsageError ("APP: --n must be positive ...") for a bad size, repeat count or grid, and for
/// --check on a simulated platform that runs no kernels.
inline void validate_distributed(std::string_view app, const Distributed& dist, int n, int block,
                                 int repeat, const ProcessGrid& grid, bool check) {
  const std::string a(app);
  const RuntimeOptions& options = dist.runtime().options();
  if (check && !options.platform.empty() && !options.platform_run_kernels)
    throw UsageError(a +
                     ": --check on a simulated platform needs --sim-run-kernels (otherwise no "
                     "kernel runs and nothing can be checked)");
  if (n <= 0) throw UsageError(a + ": --n must be positive (got " + std::to_string(n) + ")");
  if (block <= 0)
    throw UsageError(a + ": --block must be positive (got " + std::to_string(block) + ")");
  if (repeat <= 0) throw UsageError(a + ": --repeat must be positive");
  if (grid.size() != dist.size())
    throw UsageError(a + ": --grid " + grid.to_string() + " needs " + std::to_string(grid.size()) +
                     " ranks, the job has " + std::to_string(dist.size()) + " (mpirun -np " +
                     std::to_string(grid.size()) + ")");
}

/// Runs `repeat` factorisations and fills result.time_s (the fastest), result.times_s (all),
/// result.ranks (per rank, of the fastest), result.messages and result.bytes (sent by all ranks in
/// the fastest). `register_tiles()` and `submit_graph()` are called on every rank alike;
/// `unregister_all()` between runs and on a failure (which is rethrown), not after the last run:
/// the caller checks or gathers first. `progress` hears of each run ("timed runs", r of repeat).
template <typename Result, typename Register, typename Submit, typename Unregister>
void timed_runs(Distributed& dist, int repeat, const ProgressFn& progress, Result& result,
                Register&& register_tiles, Submit&& submit_graph, Unregister&& unregister_all) {
  for (int r = 0; r < repeat; ++r) {
    tell(progress, "timed runs", r, repeat);
    register_tiles();
    dist.reset_stats();
    dist.barrier();
    const double start = dist.runtime().seconds();
    try {
      submit_graph();
      dist.wait_all();
    } catch (...) {
      unregister_all();
      throw;
    }
    const double time = dist.max_over_ranks(dist.runtime().seconds() - start);
    result.times_s.push_back(time);
    std::vector<DistributedStats> ranks = dist.all_stats();
    if (r == 0 || time < result.time_s) {
      result.time_s = time;
      result.ranks = std::move(ranks);
    }
    if (r + 1 < repeat) unregister_all();
  }
  result.messages = result.bytes = 0;
  for (const auto& s : result.ranks) {
    result.messages += s.messages_sent;
    result.bytes += s.bytes_sent;
  }
}

}  // namespace conveyor::apps::common
