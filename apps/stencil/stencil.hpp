#pragma once
/// The iterative 2D Jacobi 5-point stencil on the Conveyor runtime, written against the public API
/// only, like apps/cholesky and apps/qr. Two n x n grids (ping-pong) are cut into tiles, each tile
/// registered as its own matrix (the last row and column of tiles narrower when the tile size does
/// not divide n), and each tile's four edges as small data of their own (halo strips, halo.hpp);
/// every sweep submits one task per tile that reads its tile and its up to four neighbours' facing
/// strips of one grid and writes its tile and its strips of the other. The halo exchange is nothing
/// but those reads: the runtime copies the strips wherever the task runs and orders the sweeps.
///
///   conveyor::Runtime rt;
///   StencilCodelet codelet;
///   std::vector<double> a(n * n), b(n * n);  fill_initial(a.data(), n);
///   Sweeps s = run_sweeps(rt, codelet, a.data(), b.data(), n, 512, 20, {});
///   // s.result is a.data() (even sweeps) or b.data() (odd)
#include <cstdint>

#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// The codelet's name, as the trace and the per-codelet statistics show it.
inline constexpr const char* kCodeletName = "jacobi";

/// The one codelet, "jacobi", with its CPU, OpenCL and CUDA implementations (the device ones
/// present when the build has the toolkit). Its tasks' buffers: the output tile (Write), the input
/// tile (Read), the output tile's own edge strips (Write), then the neighbours' strips (Read), in
/// the order halo.hpp gives; which neighbours exist travels in the task's args.
struct StencilCodelet {
  /// `simulated`: a CUDA implementation even in a build without CUDA, for a simulated platform's
  /// devices (which run the CPU implementation); it throws if a real device ever took it.
  explicit StencilCodelet(bool simulated = false);
  Codelet jacobi;
};

/// What one run of sweeps did.
struct Sweeps {
  double time_s = 0;  ///< from the first submit until wait_all returned
  int tiles = 0;      ///< tiles per side
  std::uint64_t tasks = 0;
  int rounds = 0;            ///< rounds of tasks: ceil(sweeps / temporal block)
  RuntimeStats stats;        ///< these sweeps alone (reset first)
  double* result = nullptr;  ///< the grid holding the last round: a (even count) or b (odd)
};

/// Runs `sweeps` sweeps from grid `a` (n x n, column-major, ld n, boundary included) using `b` as
/// the other grid, in tiles of `block`, `depth` sweeps per task (temporal blocking: strips and
/// corners `depth` wide; 1 = one sweep per task, the plain graph). Every tile of both grids and
/// their strips (memory of their own, filled from `a` first) are registered with `rt` and
/// unregistered before return, so the result is in host memory; the other grid and the strips are
/// scratch, discarded rather than copied home (the other grid holds an earlier sweep, or what it
/// held before, afterwards). Throws UsageError for a bad size
/// (depth below 1 or wider than the narrowest tile), Error when a task fails. `backed` = false: a
/// simulated platform that runs no kernels, where the grids are only addresses (reserved, not
/// backed: common::HostMatrix) and the strips are not filled from `a`.
Sweeps run_sweeps(Runtime& rt, const StencilCodelet& codelet, double* a, double* b, int n,
                  int block, int sweeps, const Coefficients& c, int depth = 1, bool backed = true);

/// Tiles per side for n and block (the last one narrower when block does not divide n).
int tiles_per_side(int n, int block);

/// The side of the narrowest tile: the last one's when block does not divide n.
int narrowest_tile(int n, int block);

/// Throws UsageError unless 1 <= depth <= narrowest_tile(n, block): a task's halo of `depth`
/// cells must come from its neighbouring tiles alone (refused, not clamped: docs/stencil.md).
void check_temporal_block(int n, int block, int depth);

}  // namespace conveyor::apps::stencil
