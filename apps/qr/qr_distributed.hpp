#pragma once
/// The tile QR factorisation on several ranks (`conveyor qr --grid PxQ` under mpirun): the task
/// flow of qr_graph.hpp with one domain of tile rows per process row (each process row eliminates
/// its own tiles of a column, then a binary tree merges the P domain tops), submitted on every rank
/// through a Distributed layer, with the tiles of A 2D block-cyclic on a P x Q process grid. With
/// one process row, or without `tree`, it is factorize()'s flat tree. The factors T_ik and TT_ik
/// live with A_ik, the copy V_hk of a domain top's reflectors with A_hk. Each rank stores only its
/// own tiles (and, with the check, rank 0 the whole matrix and every factor, into which they are
/// gathered at the end). Every task runs on the owner of the first tile it writes (owner-computes)
/// except the updates tpmqrt and ttmqrt(i, j, k), which run on A_ij's owner, so that every rank
/// updates its own tiles of the trailing matrix at every step (qr_distributed.cpp says why).
///
///   conveyor::MpiSession mpi;
///   conveyor::Runtime rt;
///   conveyor::Distributed dist(rt);
///   DistributedConfig c;  c.n = 4096;  c.block = 256;  c.grid = {2, 2};  c.check = true;
///   DistributedResult r = run_distributed(dist, c);   // same result on every rank
///   bool ok = r.passed();
#include <cstdint>
#include <vector>

#include "conveyor/distributed.hpp"
#include "conveyor/process_grid.hpp"
#include "conveyor/progress.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"

namespace conveyor::apps::qr {

struct DistributedConfig {
  int n = 4096;
  int block = 512;
  int ib = 0;  ///< inner blocking; 0: inner_block_for's default (t_factors.hpp) for the workers
  Precision precision = Precision::Double;
  ProcessGrid grid;     ///< p * q must equal the number of ranks
  int repeat = 1;       ///< factorisations timed; the fastest is reported
  ProgressFn progress;  ///< hears of each timed run (rank 0 of a run given one)
  bool warmup = true;   ///< each rank factorises a 3 x 3-tile matrix alone first (not simulated)
  bool check = false;   ///< gather A and T on rank 0 and check there, as check_qr does
  /// One domain of tile rows per process row, merged by a binary tree (qr_graph.hpp), instead of
  /// the flat tree of one node (every tile of a column eliminated into the diagonal tile: a chain
  /// that crosses process rows, but pipelines from one step to the next; docs/qr.md compares them).
  bool tree = false;
};

struct DistributedResult {
  double time_s = 0;  ///< fastest factorisation: barrier to the end of the collective wait_all
  std::vector<double> times_s;
  double median_time_s = 0;
  double gflops = 0;  ///< 4/3 n^3 / time_s
  int tiles = 0;
  int ib = 0;               ///< the inner blocking used
  int domains = 1;          ///< of tile rows (qr_graph.hpp): the process rows with tree, else 1
  std::uint64_t tasks = 0;  ///< of one factorisation, all ranks together
  /// Per rank, for the fastest factorisation (gather messages not included).
  std::vector<DistributedStats> ranks;
  std::uint64_t messages = 0, bytes = 0;  ///< sent by all ranks
  bool checked = false;
  QrCheck check;
  double residual_bound = 0, orthogonality_bound = 0;
  std::uint64_t gather_messages = 0;  ///< messages of the check's gather to rank 0
  bool passed() const {
    return !checked ||
           (check.residual <= residual_bound && check.orthogonality <= orthogonality_bound);
  }
};

/// Collective over dist's ranks. Throws UsageError for a bad configuration (on every rank),
/// Error when a task fails on any rank. A check above its bound is not thrown: see passed().
DistributedResult run_distributed(Distributed& dist, const DistributedConfig& config);

}  // namespace conveyor::apps::qr
