// The GPU peer for `conveyor qr --devices cuda:0`: one cuSOLVER geqrf call on the whole matrix,
// host to host. The matrix starts in pinned host memory and R, the reflectors and tau end there, as
// the tiles and T factors of conveyor qr do, so `time_s` counts the copy in, the factorisation and
// the copies back; `device_time_s` is the geqrf alone (CUDA events), for reference. Same matrix
// (qr::GeneralMatrix) and flop count (4/3 n^3) as conveyor qr and qr_geqrf_lapacke, fastest of
// REPEAT (and the median) after one untimed round (cuSOLVER loads its kernels on the first call),
// the matrix regenerated before each. Compiled where CMake finds the CUDA toolkit; run on a lent
// H200 (docs/results/gpu.md).
//
//   qr_geqrf_cusolver N s|d [REPEAT]   prints one JSON object per line
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "qr/qr_matrix.hpp"

namespace qr = conveyor::apps::qr;

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "qr_geqrf_cusolver: %s failed (%s)\n", what, cudaGetErrorString(e));
  std::exit(1);
}
void check(cusolverStatus_t s, const char* what) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  std::fprintf(stderr, "qr_geqrf_cusolver: %s failed (cuSOLVER status %d)\n", what,
               static_cast<int>(s));
  std::exit(1);
}

// The two precisions of cuSOLVER's dense QR, by overload.
cusolverStatus_t workspace(cusolverDnHandle_t h, int n, float* a, int* lwork) {
  return cusolverDnSgeqrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t workspace(cusolverDnHandle_t h, int n, double* a, int* lwork) {
  return cusolverDnDgeqrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int n, float* a, float* tau, float* work, int lwork,
                       int* info) {
  return cusolverDnSgeqrf(h, n, n, a, n, tau, work, lwork, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int n, double* a, double* tau, double* work, int lwork,
                       int* info) {
  return cusolverDnDgeqrf(h, n, n, a, n, tau, work, lwork, info);
}

template <typename T>
int run(int n, int repeat) {
  const qr::GeneralMatrix matrix(n);
  const std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(T);
  const std::size_t tau_bytes = static_cast<std::size_t>(n) * sizeof(T);
  T *host = nullptr, *host_tau = nullptr, *dev = nullptr, *dev_tau = nullptr, *work = nullptr;
  int* dev_info = nullptr;
  cusolverDnHandle_t handle;
  cudaStream_t stream;
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  check(cudaMallocHost(&host_tau, tau_bytes), "cudaMallocHost");
  check(cudaMalloc(&dev, bytes), "cudaMalloc (matrix)");
  check(cudaMalloc(&dev_tau, tau_bytes), "cudaMalloc (tau)");
  check(cudaMalloc(&dev_info, sizeof(int)), "cudaMalloc (info)");
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  check(cusolverDnCreate(&handle), "cusolverDnCreate");
  check(cusolverDnSetStream(handle, stream), "cusolverDnSetStream");
  int lwork = 0;
  check(workspace(handle, n, dev, &lwork), "geqrf_bufferSize");
  check(cudaMalloc(&work, static_cast<std::size_t>(lwork) * sizeof(T)), "cudaMalloc (workspace)");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");

  double best = 0, best_device = 0;
  std::vector<double> times;
  int info = 0;
  for (int r = -1; r < repeat; ++r) {  // r = -1: untimed
    matrix.fill(host, n);
    const auto start = std::chrono::steady_clock::now();
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream), "copy in");
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    check(geqrf(handle, n, dev, dev_tau, work, lwork, dev_info), "geqrf");
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream), "copy back");
    check(cudaMemcpyAsync(host_tau, dev_tau, tau_bytes, cudaMemcpyDeviceToHost, stream),
          "copy back (tau)");
    check(cudaMemcpyAsync(&info, dev_info, sizeof(int), cudaMemcpyDeviceToHost, stream), "info");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    if (info != 0) {
      std::fprintf(stderr, "qr_geqrf_cusolver: geqrf info %d\n", info);
      return 1;
    }
    if (r < 0) continue;
    times.push_back(t);
    if (r == 0 || t < best) best = t;
    if (r == 0 || ms * 1e-3 < best_device) best_device = ms * 1e-3;
  }
  // Not a residual (that needs Q), but a result that is not finite is no factorisation: R's
  // diagonal must be finite and, for this well-conditioned matrix, nonzero.
  bool finite = true;
  for (int i = 0; i < n; ++i) {
    const double d = host[static_cast<std::size_t>(i) * n + i];
    finite = finite && std::isfinite(d) && d != 0.0;
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf(
      "{\"peer\": \"cusolver_geqrf\", \"precision\": \"%s\", \"n\": %d, \"time_s\": %.6f, "
      "\"gflops\": %.3f, \"median_time_s\": %.6f, \"median_gflops\": %.3f, \"device_time_s\": "
      "%.6f, \"device_gflops\": %.3f, \"repeat\": %d, \"host_to_host\": true, "
      "\"r_diagonal_finite\": %s}\n",
      sizeof(T) == 4 ? "single" : "double", n, best, qr::qr_flops(n) / best / 1e9, median,
      qr::qr_flops(n) / median / 1e9, best_device, qr::qr_flops(n) / best_device / 1e9, repeat,
      finite ? "true" : "false");
  cusolverDnDestroy(handle);
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
  cudaFree(work);
  cudaFree(dev_info);
  cudaFree(dev_tau);
  cudaFree(dev);
  cudaFreeHost(host_tau);
  cudaFreeHost(host);
  return finite ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc >= 3 ? std::atoi(argv[1]) : 0;
  const std::string p = argc >= 3 ? argv[2] : "";
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  if (argc > 4 || n <= 0 || repeat <= 0 || (p != "s" && p != "d")) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT]   (N, REPEAT positive)\n", argv[0]);
    return 2;
  }
  return p == "s" ? run<float>(n, repeat) : run<double>(n, repeat);
}
