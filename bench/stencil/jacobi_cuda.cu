// The plain CUDA peer of `conveyor stencil --devices cuda:0` for grids that fit in device memory:
// the whole grid and its ping-pong partner live on the device, and each sweep is one kernel launch
// over every interior cell, no tiles and no runtime (jacobi_cuda_sweep.cuh). Same grid
// (stencil::fill_initial), the same update in the same order as stencil/point.hpp, fixed boundary,
// and the same traffic count as conveyor stencil (2 * 8 * n^2 bytes per sweep). Two times, each the
// fastest of REPEAT after one untimed round:
//   time_s           "in core": the grid already on the device, the T sweeps alone (CUDA events);
//                    the upper bound of conveyor stencil's rate
//   host_to_host_s   the grid in pinned host memory copied in (and on the device to its partner, so
//                    that both hold the boundary), the T sweeps, the result copied home: what
//                    conveyor stencil's time also holds (wall clock)
// --check compares every cell of the result with the host's sequential reference
// (stencil::reference_sweeps, one thread: use a small N), which must be equal bit for bit.
// Compiled where CMake finds the CUDA toolkit; not yet run on a GPU.
//
//   stencil_jacobi_cuda N SWEEPS [REPEAT] [--check]   prints one JSON object
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "jacobi_cuda_sweep.cuh"
#include "stencil/grid.hpp"
#include "stencil/point.hpp"

namespace st = conveyor::apps::stencil;
namespace bench = conveyor::bench::stencil;

namespace {

[[noreturn]] void fail(const char* what, cudaError_t e) {
  std::fprintf(stderr, "stencil_jacobi_cuda: %s failed (%s)\n", what, cudaGetErrorString(e));
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, e);
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

  // Pinned, so that the host-to-host time copies at link speed, as conveyor stencil's tiles do.
  double *initial = nullptr, *result = nullptr;
  check(cudaMallocHost(&initial, bytes), "cudaMallocHost");
  check(cudaMallocHost(&result, bytes), "cudaMallocHost");
  st::fill_initial(initial, n);
  double *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");

  const st::Coefficients c;
  const dim3 block = bench::jacobi_loop_block(), grid = bench::jacobi_loop_grid(n);
  auto sweeps_on_device = [&](int count) {
    for (int s = 0; s < count; ++s) {
      const double* in = s % 2 == 0 ? a : b;
      double* out = s % 2 == 0 ? b : a;
      bench::jacobi_loop_sweep<<<grid, block, 0, stream>>>(in, out, n, c.c0, c.c1);
    }
    check(cudaGetLastError(), "kernel launch");
  };
  // After an even number of sweeps the result is in a, after an odd one in b.
  const double* last = sweeps % 2 == 0 ? a : b;

  // In core: both grids start as the initial grid (so both hold the boundary) before the clock.
  double best = 0;
  for (int r = -1; r < repeat; ++r) {  // r = -1: untimed (module load, first touch)
    check(cudaMemcpyAsync(a, initial, bytes, cudaMemcpyHostToDevice, stream), "copy in");
    check(cudaMemcpyAsync(b, initial, bytes, cudaMemcpyHostToDevice, stream), "copy in");
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    sweeps_on_device(r < 0 ? 1 : sweeps);
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    if (r >= 0 && (r == 0 || ms * 1e-3 < best)) best = ms * 1e-3;
  }

  // Host to host: the copy in, the second grid's boundary (a device-side copy), the sweeps, the
  // copy home, on the wall clock.
  std::vector<double> host_times;
  for (int r = -1; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaMemcpyAsync(a, initial, bytes, cudaMemcpyHostToDevice, stream), "copy in");
    check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream), "copy on the device");
    sweeps_on_device(sweeps);
    check(cudaMemcpyAsync(result, last, bytes, cudaMemcpyDeviceToHost, stream), "copy home");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    if (r >= 0) host_times.push_back(took.count());
  }
  std::sort(host_times.begin(), host_times.end());
  const double host_best = host_times.front(), host_median = host_times[host_times.size() / 2];

  long long mismatches = -1;
  double max_abs_diff = 0;
  if (check_result) {
    std::vector<double> reference(initial, initial + cells), scratch(cells);
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
  const double traffic = sweeps * st::sweep_bytes(n);
  std::printf(
      "{\"peer\": \"cuda_jacobi\", \"n\": %d, \"sweeps\": %d, \"repeat\": %d, \"in_core\": true, "
      "\"time_s\": %.6f, \"gbs\": %.3f, \"host_to_host_s\": %.6f, \"host_to_host_median_s\": "
      "%.6f, \"host_to_host_gbs\": %.3f, \"check\": %s}\n",
      n, sweeps, repeat, best, traffic / best / 1e9, host_best, host_median,
      traffic / host_best / 1e9, check_text);
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  cudaFreeHost(initial);
  cudaFreeHost(result);
  return mismatches > 0 ? 1 : 0;
}
