#pragma once
/// The tiled Cholesky factorisation on several ranks (`conveyor cholesky --grid PxQ` under
/// mpirun): the same task flow as factorize(), submitted on every rank through a Distributed
/// layer, with the tiles of the lower triangle 2D block-cyclic on a P x Q process grid. Each rank
/// stores only its own tiles (and, with the check, rank 0 the whole matrix, into which every tile
/// is gathered at the end).
///
///   conveyor::MpiSession mpi;
///   conveyor::Runtime rt;
///   conveyor::Distributed dist(rt);
///   DistributedConfig c;  c.n = 4096;  c.block = 256;  c.grid = {2, 2};  c.check = true;
///   DistributedResult r = run_distributed(dist, c);   // same result on every rank
///   bool ok = r.passed() && r.messages == r.expected.messages;
#include <cstdint>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/communication.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/progress.hpp"

namespace conveyor::apps::cholesky {

struct DistributedConfig {
  int n = 8192;
  int block = 512;
  Precision precision = Precision::Double;
  ProcessGrid grid;     ///< p * q must equal the number of ranks
  int repeat = 1;       ///< factorisations timed; the fastest is reported
  ProgressFn progress;  ///< hears of each timed run (rank 0 of a run given one)
  bool check = false;   ///< gather L on rank 0 and compute ||A - L L^T||_F / ||A||_F there
};

struct DistributedResult {
  double time_s = 0;  ///< fastest factorisation: barrier to the end of the collective wait_all
  std::vector<double> times_s;
  double gflops = 0;
  int tiles = 0;
  /// Per rank, for the fastest factorisation (gather messages not included).
  std::vector<DistributedStats> ranks;
  std::uint64_t messages = 0, bytes = 0;  ///< sent by all ranks
  CommunicationVolume expected;           ///< the closed form (communication.hpp)
  bool checked = false;
  double residual = 0, residual_bound = 0;
  std::uint64_t gather_messages = 0;  ///< messages of the check's gather to rank 0
  bool passed() const { return !checked || residual <= residual_bound; }
  bool volume_matches() const { return messages == expected.messages && bytes == expected.bytes; }
};

/// Collective over dist's ranks. Throws UsageError for a bad configuration (on every rank),
/// Error when a task fails on any rank.
DistributedResult run_distributed(Distributed& dist, const DistributedConfig& config);

}  // namespace conveyor::apps::cholesky
