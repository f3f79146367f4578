#pragma once
/// The timed runs of the apps' distributed factorisations (cholesky, qr --grid), on MPI ranks or a
/// simulated cluster: each run registers the tiles, waits at a barrier, submits the graph and
/// waits for it; its time is the slowest rank's from the barrier to the end of the collective
/// wait_all, on the runtime's clock (virtual on a simulated cluster). Header-only: only the
/// distributed apps include it (it needs the MPI layer).
#include <cstdint>
#include <utility>
#include <vector>

#include "conveyor/distributed.hpp"

namespace conveyor::apps::common {

/// Runs `repeat` factorisations and fills result.time_s (the fastest), result.times_s (all),
/// result.ranks (per rank, of the fastest), result.messages and result.bytes (sent by all ranks in
/// the fastest). `register_tiles()` and `submit_graph()` are called on every rank alike;
/// `unregister_all()` between runs and on a failure (which is rethrown), not after the last run:
/// the caller checks or gathers first.
template <typename Result, typename Register, typename Submit, typename Unregister>
void timed_runs(Distributed& dist, int repeat, Result& result, Register&& register_tiles,
                Submit&& submit_graph, Unregister&& unregister_all) {
  for (int r = 0; r < repeat; ++r) {
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
