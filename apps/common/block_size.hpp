#pragma once
/// The tile size the tiled workloads (`conveyor cholesky`, `conveyor qr`, `conveyor stencil`, and
/// Python's conveyor.linalg) use when --block is not given, from the matrix order and the number of
/// workers, or from the performance models with devices (docs/cholesky.md, "Tile size"). Each app
/// passes its own tasks (TileWorkload) through its `block_for`.
/// The figures below were measured with the Cholesky kernels; QR's tile kernels are BLAS-3 too and
/// its task graph starves at the end the same way, so the same rule serves it.
///
/// Two forces: larger tiles run the BLAS kernels faster (OpenBLAS on a Zen 3 core, single
/// precision, 512 -> 1024: gemm +3 %, syrk +5 %, trsm +6 % inside a run), while fewer tiles leave
/// workers idle at the end of the factorisation, when the trailing matrix has fewer tiles than
/// there are workers. Starvation begins once about sqrt(2p) tiles per side remain, so the share of
/// the work done starved shrinks like (sqrt(p) / t)^3: t >= 4 sqrt(p) tiles per side keeps it near
/// 1 %. Above that, tiles are made as large as that allows, up to 1024, past which the kernels
/// gain nothing measurable on a CPU core. A run with no CPU workers (devices only) caps tiles at
/// 2048 instead: a GPU's kernels keep gaining up to there (H200, docs/results.md: 2048 against 1024
/// is 1.2-1.7x at n = 8192 to 32768, and 4 tiles per side still beat cuSOLVER at n = 8192).
///
///   default_block(8192, 2)  == 1024   (8 tiles per side: kernels fastest, 1 % idle)
///   default_block(8192, 16) ==  512   (16 tiles per side)
///   default_block(2048, 2)  ==  320   (7 tiles per side, the last one narrower)
///   default_block(32768, 1, kMaxDeviceBlock) == 2048   (one GPU: 16 tiles per side)
///
/// With devices, under the model schedulers, the tile follows the performance models instead
/// (block_for with a TileWorkload): when the devices are much faster than the other workers
/// together (a GPU beside CPU cores), tiles are sized for the devices alone, as if the others were
/// not there, choosing among the tiles that leave 4 sqrt(d) per side for d devices the one the
/// models say runs the workload fastest on them; the model scheduler then gives the CPU cores a
/// task only where that ends it sooner. Counting every worker as equal gave a GPU and 16 cores
/// tiles of 1024 at n = 32768 (the GPU alone: 2048), 0.73x the GPU alone on an H200 node.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"

namespace conveyor::apps::common {

inline constexpr int kMaxDefaultBlock = 1024;
inline constexpr int kMaxDeviceBlock = 2048;  ///< the cap when every worker is a device
inline constexpr int kBlockGranule = 64;      ///< tiles are a multiple of this (cache lines, SIMD)

/// A tile size for an n x n matrix on `workers` workers (at least 1 is assumed); n must be
/// positive. A multiple of kBlockGranule, at least kBlockGranule (one tile when n is smaller), at
/// most max_block.
int default_block(int n, int workers, int max_block = kMaxDefaultBlock);

/// A tile size for sweeping an n x n grid (the stencil) on `workers` CPU workers: every tile of a
/// sweep is independent of the others, so no critical path starves the workers at the end and
/// about 2 sqrt(2p) tiles per side do (default_block's 4 sqrt(p) is a factorisation's); fewer,
/// larger tiles halve the strips and tasks per sweep. 2-core Xeon, n = 2048 and 4096: the
/// factorisation's tiles (320, 640) ran at 0.85x / 0.81x the OpenMP loop, these (512, 1024) at
/// 1.14x / 1.0x. At most max_block, a multiple of kBlockGranule.
int sweep_block(int n, int workers, int max_block = kMaxDefaultBlock);

/// The CPU workers a runtime made with `options` has: one per core when options.cpus < 0.
int cpu_workers(const RuntimeOptions& options);

/// Whether a runtime made with `options` may run tasks on devices: devices listed, or a simulated
/// platform (whose devices it takes by default).
inline bool with_devices(const RuntimeOptions& options) {
  return !options.devices.empty() || !options.platform.empty();
}

/// `block` when given (> 0), else default_block for the workers a runtime made with `options` has:
/// its CPU workers (one per core when options.cpus < 0) and its devices, with tiles up to
/// kMaxDeviceBlock when there are no CPU workers.
int block_for(int n, int block, const RuntimeOptions& options);

/// One kind of task of a tiled workload: its codelet, how many there are, the flops of one and its
/// buffers' sizes in access order (what the performance models are keyed by).
struct TileTasks {
  std::string codelet;
  double count = 0;
  double flops = 0;
  std::vector<std::size_t> buffer_bytes;
};
/// The tasks of the whole workload on an n x n matrix in tiles of `block`.
using TileWorkload = std::function<std::vector<TileTasks>(int n, int block)>;

/// `block` when given (> 0); else, for a run with devices under a model scheduler ("model",
/// "model-ready": RuntimeOptions::scheduler, resolved), the tile the performance models
/// (WorkerModels: a simulated platform's, or the models file) say suits the fastest devices when
/// they dominate the other workers, see above; else block_for(n, block, options) as before, with
/// a simulated platform's cores and devices counted. A device the models know nothing of is
/// priced at its kind's nominal rate (a fresh machine), so a GPU beside CPU cores still gets GPU
/// tiles; a run on CPUs only is unchanged.
int block_for(int n, int block, const RuntimeOptions& options, const TileWorkload& workload);

}  // namespace conveyor::apps::common
