// The stencil's CUDA tile kernels against the plain CUDA loop, with no runtime: does one tile of
// conveyor stencil sweep at the loop's bandwidth? One interior tile of N x N (neighbours on all
// four sides, their strips held fixed) is swept SWEEPS times by the app's kernel
// (cuda_jacobi_enqueue), and the loop's kernel (jacobi_cuda_sweep.cuh) sweeps the (N + 2) x (N + 2)
// grid whose fixed ring is those strips: the same cells, the same result bit for bit. Then temporal
// blocking: the app's deep kernel (cuda_jacobi_deep_enqueue, DEPTH sweeps per call on the tile with
// DEPTH-wide strips and corners) against DEPTH loop sweeps of the (N + 2 DEPTH) grid, whose tile
// region must also agree bit for bit. Each time is the median of REPEAT (CUDA events, after an
// untimed round); the bandwidth counts conveyor stencil's traffic, 2 * 8 bytes per tile cell and
// sweep, for all three, so the ratios are of time per sweep. Compiled where CMake finds the CUDA
// toolkit; not yet run on a GPU.
//
//   stencil_tile_kernel_cuda [N] [SWEEPS] [REPEAT] [DEPTH]   (defaults 2048 100 5 4; one JSON line)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "jacobi_cuda_sweep.cuh"
#include "stencil/cuda/stencil_cuda_kernels.hpp"
#include "stencil/grid.hpp"
#include "stencil/point.hpp"

namespace st = conveyor::apps::stencil;
namespace bench = conveyor::bench::stencil;

namespace {

[[noreturn]] void fail(const char* what, const std::string& why) {
  std::fprintf(stderr, "stencil_tile_kernel_cuda: %s failed (%s)\n", what, why.c_str());
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, cudaGetErrorString(e));
}

// A device buffer of `count` doubles, freed with it.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    check(cudaMalloc(reinterpret_cast<void**>(&p_), count * sizeof(double)), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(p_); }
  double* get() const { return p_; }
  // Waits for the device: a copy from pageable memory may return before it lands, and the kernels
  // run on a non-blocking stream, which does not wait for the legacy stream's copies.
  void upload(const std::vector<double>& host) const {
    check(cudaMemcpy(p_, host.data(), count_ * sizeof(double), cudaMemcpyHostToDevice), "copy in");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  std::vector<double> download() const {
    std::vector<double> host(count_);
    check(cudaMemcpy(host.data(), p_, count_ * sizeof(double), cudaMemcpyDeviceToHost),
          "copy home");
    return host;
  }

 private:
  double* p_ = nullptr;
  std::size_t count_;
};

// The rows x cols block of `grid` (g x g, column-major) at (row0, col0), column-major.
std::vector<double> block_of(const std::vector<double>& grid, int g, int row0, int col0, int rows,
                             int cols) {
  std::vector<double> out(static_cast<std::size_t>(rows) * cols);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      out[r + static_cast<std::size_t>(c) * rows] =
          grid[(row0 + r) + static_cast<std::size_t>(col0 + c) * g];
  return out;
}

std::vector<double> initial_grid(int g) {
  std::vector<double> grid(static_cast<std::size_t>(g) * g);
  st::fill_initial(grid.data(), g);
  return grid;
}

// Median seconds of `repeat` timed calls of `run` (on `stream`), after one untimed call.
template <typename Run>
double median_seconds(cudaStream_t stream, int repeat, Run run) {
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  std::vector<double> times;
  for (int r = -1; r < repeat; ++r) {
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    run();
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    if (r >= 0) times.push_back(ms * 1e-3);
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The loop's sweeps of a g x g grid from `grid`: the median time of `sweeps` sweeps and the result.
struct LoopRun {
  double seconds;
  std::vector<double> result;
};
LoopRun loop_sweeps(cudaStream_t stream, const std::vector<double>& grid, int g, int sweeps,
                    int repeat, const st::Coefficients& c) {
  DeviceBuffer a(grid.size()), b(grid.size());
  auto reset = [&] {
    a.upload(grid);
    b.upload(grid);  // both hold the fixed ring
  };
  auto sweep = [&] {
    for (int s = 0; s < sweeps; ++s)
      bench::
          jacobi_loop_sweep<<<bench::jacobi_loop_grid(g), bench::jacobi_loop_block(), 0, stream>>>(
              s % 2 == 0 ? a.get() : b.get(), s % 2 == 0 ? b.get() : a.get(), g, c.c0, c.c1);
  };
  reset();
  const double seconds = median_seconds(stream, repeat, sweep);
  // The timed rounds kept sweeping the same grids: sweep once more from the initial grid.
  reset();
  sweep();
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return {seconds, (sweeps % 2 == 0 ? a : b).download()};
}

// Cells that differ bit for bit.
long long mismatches(const std::vector<double>& got, const std::vector<double>& want) {
  long long count = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) ++count;
  return count;
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [N] [SWEEPS] [REPEAT] [DEPTH]   (N >= 3, 1 <= DEPTH <= N; defaults "
               "2048 100 5 4)\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 5) return usage(argv[0]);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int sweeps = argc > 2 ? std::atoi(argv[2]) : 100;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 5;
  const int depth = argc > 4 ? std::atoi(argv[4]) : 4;
  if (n < 3 || n > 1 << 15 || sweeps <= 0 || repeat <= 0 || depth < 1 || depth > n)
    return usage(argv[0]);
  const st::Coefficients c;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const std::size_t cells = static_cast<std::size_t>(n) * n;

  // --- One sweep per launch: the tile kernel against the loop on the (n + 2)^2 grid. ---
  const int g = n + 2;
  const std::vector<double> grid = initial_grid(g);
  const LoopRun loop = loop_sweeps(stream, grid, g, sweeps, repeat, c);

  const std::vector<double> tile_in = block_of(grid, g, 1, 1, n, n);
  DeviceBuffer in(cells), out(cells);
  // The neighbours' strips: the grid's ring (north: row 0, south: row g - 1, west: column 0,
  // east: column g - 1, each without the corners), fixed as the loop's ring is.
  DeviceBuffer north(n), south(n), west(n), east(n);
  north.upload(block_of(grid, g, 0, 1, 1, n));
  south.upload(block_of(grid, g, g - 1, 1, 1, n));
  west.upload(block_of(grid, g, 1, 0, n, 1));
  east.upload(block_of(grid, g, 1, g - 1, n, 1));
  DeviceBuffer out_north(n), out_south(n), out_west(n), out_east(n);
  auto tiles = [&](double* from, double* to) {
    st::DeviceTiles t;
    t.in = from;
    t.out = to;
    t.north = north.get();
    t.south = south.get();
    t.west = west.get();
    t.east = east.get();
    t.out_north = out_north.get();
    t.out_south = out_south.get();
    t.out_west = out_west.get();
    t.out_east = out_east.get();
    t.rows = n;
    t.cols = n;
    return t;
  };
  auto tile_sweeps = [&] {
    for (int s = 0; s < sweeps; ++s)
      st::cuda_jacobi_enqueue(
          stream, s % 2 == 0 ? tiles(in.get(), out.get()) : tiles(out.get(), in.get()), c);
  };
  in.upload(tile_in);
  const double tile_seconds = median_seconds(stream, repeat, tile_sweeps);
  in.upload(tile_in);
  tile_sweeps();
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const long long tile_mismatches =
      mismatches((sweeps % 2 == 0 ? in : out).download(), block_of(loop.result, g, 1, 1, n, n));

  // --- Temporal blocking: DEPTH sweeps per call against DEPTH loop sweeps of (n + 2D)^2. ---
  const int e = n + 2 * depth;
  const std::vector<double> ext = initial_grid(e);
  const LoopRun deep_loop = loop_sweeps(stream, ext, e, depth, repeat, c);
  const int d = depth, far = d + n;  // the tile's first row and column in ext, and past its last
  DeviceBuffer deep_in(cells), deep_out(cells);
  deep_in.upload(block_of(ext, e, d, d, n, n));
  // Strips N, S (d x n), W, E (n x d); corners NW, NE, SW, SE (d x d): the ring of ext.
  const std::vector<double> strip_values[4] = {
      block_of(ext, e, 0, d, d, n), block_of(ext, e, far, d, d, n), block_of(ext, e, d, 0, n, d),
      block_of(ext, e, d, far, n, d)};
  const std::vector<double> corner_values[4] = {
      block_of(ext, e, 0, 0, d, d), block_of(ext, e, 0, far, d, d), block_of(ext, e, far, 0, d, d),
      block_of(ext, e, far, far, d, d)};
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  auto device_copy = [&](const std::vector<double>& host) {
    owned.push_back(std::make_unique<DeviceBuffer>(host.size()));
    owned.back()->upload(host);
    return owned.back()->get();
  };
  st::DeepTiles deep;
  deep.in = deep_in.get();
  deep.out = deep_out.get();
  for (int k = 0; k < 4; ++k) {
    deep.strips[k] = device_copy(strip_values[k]);
    deep.corners[k] = device_copy(corner_values[k]);
    deep.out_strips[k] = device_copy(std::vector<double>(strip_values[k].size()));
    deep.out_corners[k] = device_copy(std::vector<double>(corner_values[k].size()));
  }
  deep.rows = deep.cols = n;
  deep.in_ld = deep.out_ld = n;
  deep.bits = st::kNorth | st::kSouth | st::kWest | st::kEast;
  deep.width = deep.depth = depth;
  // Timed: SWEEPS / DEPTH calls (at least one) from the same tile, strips fixed.
  const int calls = std::max(1, sweeps / depth);
  const double deep_seconds = median_seconds(stream, repeat, [&] {
    for (int k = 0; k < calls; ++k) st::cuda_jacobi_deep_enqueue(stream, deep, c);
  });
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const long long deep_mismatches =
      mismatches(deep_out.download(), block_of(deep_loop.result, e, d, d, n, n));

  const double bytes = 2.0 * sizeof(double) * static_cast<double>(cells);  // per sweep
  const double loop_sweep = loop.seconds / sweeps, tile_sweep = tile_seconds / sweeps;
  const double deep_sweep = deep_seconds / (static_cast<double>(calls) * depth);
  std::printf(
      "{\"bench\": \"stencil_tile_kernel_cuda\", \"n\": %d, \"sweeps\": %d, \"repeat\": %d, "
      "\"depth\": %d, \"loop_sweep_s\": %.9f, \"loop_gbs\": %.3f, \"tile_sweep_s\": %.9f, "
      "\"tile_gbs\": %.3f, \"tile_vs_loop\": %.4f, \"tile_mismatches\": %lld, "
      "\"deep_sweep_s\": %.9f, \"deep_gbs\": %.3f, \"deep_vs_loop\": %.4f, "
      "\"deep_mismatches\": %lld, \"check\": \"%s\"}\n",
      n, sweeps, repeat, depth, loop_sweep, bytes / loop_sweep / 1e9, tile_sweep,
      bytes / tile_sweep / 1e9, loop_sweep / tile_sweep, tile_mismatches, deep_sweep,
      bytes / deep_sweep / 1e9, loop_sweep / deep_sweep, deep_mismatches,
      tile_mismatches == 0 && deep_mismatches == 0 ? "passed" : "failed");
  owned.clear();
  cudaStreamDestroy(stream);
  return tile_mismatches == 0 && deep_mismatches == 0 ? 0 : 1;
}
