// The plain CUDA peer of `conveyor stencil --devices cuda:0` for grids that fit in device memory:
// the whole grid and its ping-pong partner live on the device, and each sweep is one kernel launch
// over every interior cell, no tiles and no runtime. Same grid (stencil::fill_initial), the same
// update in the same order as stencil/point.hpp (c0 * centre + c1 * (((north + south) + west) +
// east), products and sums with __dmul_rn / __dadd_rn so that nvcc fuses nothing into an FMA),
// fixed boundary, and the same traffic count as conveyor stencil (2 * 8 * n^2 bytes per sweep).
// "In core": the grid is copied to the device before the clock starts and the T sweeps alone are
// timed (CUDA events), fastest of REPEAT after one untimed round, the grid copied in again before
// each; conveyor stencil's time also holds the copies in and home, so this is its upper bound.
// --check compares every cell of the result with the host's sequential reference
// (stencil::reference_sweeps, one thread: use a small N), which must be equal bit for bit.
// Compiled where CMake finds the CUDA toolkit; not yet run on a GPU.
//
//   stencil_jacobi_cuda N SWEEPS [REPEAT] [--check]   prints one JSON object
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stencil/grid.hpp"
#include "stencil/point.hpp"

namespace st = conveyor::apps::stencil;

namespace {

[[noreturn]] void fail(const char* what, cudaError_t e) {
  std::fprintf(stderr, "stencil_jacobi_cuda: %s failed (%s)\n", what, cudaGetErrorString(e));
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, e);
}

// One sweep, one thread per cell: x down a column (column-major, so a warp reads 32 consecutive
// doubles), y across columns. The outer ring is the fixed boundary: both grids hold it from the
// start and no sweep writes it.
__global__ void sweep(const double* __restrict__ in, double* __restrict__ out, int n, double c0,
                      double c1) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row <= 0 || col <= 0 || row >= n - 1 || col >= n - 1) return;
  const std::size_t stride = static_cast<std::size_t>(n);
  const std::size_t at = static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * stride;
  const double north = in[at - 1], south = in[at + 1];
  const double west = in[at - stride], east = in[at + stride];
  const double neighbours = __dadd_rn(__dadd_rn(__dadd_rn(north, south), west), east);
  out[at] = __dadd_rn(__dmul_rn(c0, in[at]), __dmul_rn(c1, neighbours));
}

int usage(const char* program) {
  std::fprintf(stderr, "usage: %s N SWEEPS [REPEAT] [--check]   (N >= 3, SWEEPS, REPEAT > 0)\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool check_result = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--check") == 0)
      check_result = true;
    else
      args.emplace_back(argv[i]);
  }
  if (args.size() < 2 || args.size() > 3) return usage(argv[0]);
  const int n = std::atoi(args[0].c_str());
  const int sweeps = std::atoi(args[1].c_str());
  const int repeat = args.size() > 2 ? std::atoi(args[2].c_str()) : 1;
  if (n < 3 || sweeps <= 0 || repeat <= 0 || n > 1 << 20) return usage(argv[0]);

  const std::size_t cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t bytes = cells * sizeof(double);
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (2 * bytes > free_bytes) {
    std::fprintf(stderr,
                 "stencil_jacobi_cuda: two %d x %d grids need %.2f GB, the device has %.2f GB "
                 "free (this peer runs in core only)\n",
                 n, n, 2e-9 * static_cast<double>(bytes), 1e-9 * static_cast<double>(free_bytes));
    return 2;
  }

  std::vector<double> initial(cells);
  st::fill_initial(initial.data(), n);
  double *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  // Both grids start as the initial grid, so both hold the boundary.
  check(cudaMemcpy(b, initial.data(), bytes, cudaMemcpyHostToDevice), "copy in");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");

  const st::Coefficients c;
  const dim3 block(32, 8);
  const dim3 grid((n + 31) / 32, (n + 7) / 8);
  double best = 0;
  for (int r = -1; r < repeat; ++r) {  // r = -1: untimed (module load, first touch)
    check(cudaMemcpy(a, initial.data(), bytes, cudaMemcpyHostToDevice), "copy in");
    const int count = r < 0 ? 1 : sweeps;
    check(cudaEventRecord(begin), "cudaEventRecord");
    for (int s = 0; s < count; ++s) {
      const double* in = s % 2 == 0 ? a : b;
      double* out = s % 2 == 0 ? b : a;
      sweep<<<grid, block>>>(in, out, n, c.c0, c.c1);
    }
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(end), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    if (r >= 0 && (r == 0 || ms * 1e-3 < best)) best = ms * 1e-3;
  }

  // After an even number of sweeps the result is in a, after an odd one in b.
  std::vector<double> result(cells);
  check(cudaMemcpy(result.data(), sweeps % 2 == 0 ? a : b, bytes, cudaMemcpyDeviceToHost),
        "copy home");
  long long mismatches = -1;
  double max_abs_diff = 0;
  if (check_result) {
    std::vector<double> reference = initial, scratch(cells);
    st::reference_sweeps(reference.data(), scratch.data(), n, sweeps, c);
    mismatches = 0;
    for (std::size_t i = 0; i < cells; ++i) {
      if (std::memcmp(&result[i], &reference[i], sizeof(double)) != 0) {
        ++mismatches;
        max_abs_diff = std::fmax(max_abs_diff, std::fabs(result[i] - reference[i]));
      }
    }
  }
  char check_text[96] = "\"not run\"";
  if (check_result)
    std::snprintf(check_text, sizeof check_text,
                  "\"%s\", \"mismatches\": %lld, \"max_abs_diff\": %.3e",
                  mismatches == 0 ? "passed" : "failed", mismatches, max_abs_diff);
  std::printf(
      "{\"peer\": \"cuda_jacobi\", \"n\": %d, \"sweeps\": %d, \"repeat\": %d, \"in_core\": true, "
      "\"time_s\": %.6f, \"gbs\": %.3f, \"check\": %s}\n",
      n, sweeps, repeat, best, sweeps * st::sweep_bytes(n) / best / 1e9, check_text);
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaFree(a);
  cudaFree(b);
  return mismatches > 0 ? 1 : 0;
}
