// The GPU peer for `conveyor cholesky --devices cuda:0`: one cuSOLVER potrf call on the whole
// matrix. The matrix starts and ends in (pinned) host memory, as it does for conveyor cholesky, so
// `time_s` counts the copy in, the factorisation and the copy back; `device_time_s` is the potrf
// alone, for reference. Same matrix, flop count and check as conveyor cholesky.
//
//   cholesky_potrf_cusolver N s|d [REPEAT [nocheck]]   prints one JSON object per line
// (nocheck skips the residual, an O(n^3) host computation, as conveyor cholesky without --check)
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cholesky/cholesky_matrix.hpp"

namespace ch = conveyor::apps::cholesky;

namespace {

[[noreturn]] void die(const char* what, int code) {
  std::fprintf(stderr, "cholesky_potrf_cusolver: %s failed (%d)\n", what, code);
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(what, static_cast<int>(e));
}
void check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS) die(what, static_cast<int>(s));
}

cusolverStatus_t buffer_size(cusolverDnHandle_t h, int n, float* a, int* lwork) {
  return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t buffer_size(cusolverDnHandle_t h, int n, double* a, int* lwork) {
  return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lwork);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float* a, float* work, int lwork, int* info) {
  return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double* a, double* work, int lwork, int* info) {
  return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, work, lwork, info);
}

template <typename T>
int run(int n, int repeat, bool check_result) {
  ch::SpdMatrix spd(n);
  std::size_t bytes = static_cast<std::size_t>(n) * n * sizeof(T);
  T* host = nullptr;
  T* dev = nullptr;
  T* work = nullptr;
  int* dev_info = nullptr;
  cusolverDnHandle_t handle;
  cudaStream_t stream;
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaMalloc(&dev_info, sizeof(int)), "cudaMalloc");
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  check(cusolverDnCreate(&handle), "cusolverDnCreate");
  check(cusolverDnSetStream(handle, stream), "cusolverDnSetStream");
  int lwork = 0;
  check(buffer_size(handle, n, dev, &lwork), "potrf_bufferSize");
  check(cudaMalloc(&work, static_cast<std::size_t>(lwork) * sizeof(T)), "cudaMalloc");
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");

  double best = 0, best_device = 0;
  int info = 0;
  // One untimed round first: cuSOLVER loads its kernels on the first call.
  for (int r = -1; r < repeat; ++r) {
    spd.fill(host, n);
    auto start = std::chrono::steady_clock::now();
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream), "copy in");
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    check(potrf(handle, n, dev, work, lwork, dev_info), "potrf");
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream), "copy out");
    check(cudaMemcpyAsync(&info, dev_info, sizeof(int), cudaMemcpyDeviceToHost, stream), "info");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    if (info != 0) {
      std::fprintf(stderr, "cholesky_potrf_cusolver: potrf info %d\n", info);
      return 1;
    }
    if (r < 0) continue;
    if (r == 0 || t < best) best = t;
    if (r == 0 || ms * 1e-3 < best_device) best_device = ms * 1e-3;
  }
  double residual = check_result ? ch::cholesky_residual(spd, host, n) : 0.0;
  char residual_text[32] = "null";  // JSON null when not checked
  if (check_result) std::snprintf(residual_text, sizeof residual_text, "%.3e", residual);
  std::printf(
      "{\"peer\": \"cusolver_potrf\", \"precision\": \"%s\", \"n\": %d, \"time_s\": %.6f, "
      "\"gflops\": %.3f, \"device_time_s\": %.6f, \"device_gflops\": %.3f, \"residual\": %s}\n",
      sizeof(T) == 4 ? "single" : "double", n, best, ch::cholesky_flops(n) / best / 1e9,
      best_device, ch::cholesky_flops(n) / best_device / 1e9, residual_text);
  cusolverDnDestroy(handle);
  cudaStreamDestroy(stream);
  cudaFree(work);
  cudaFree(dev_info);
  cudaFree(dev);
  cudaFreeHost(host);
  return !check_result || residual <= ch::residual_bound<T>(n) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc >= 3 ? std::atoi(argv[1]) : 0;
  std::string p = argc >= 3 ? argv[2] : "";
  int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  std::string check = argc > 4 ? argv[4] : "check";
  if (n <= 0 || repeat <= 0 || (p != "s" && p != "d") || (check != "check" && check != "nocheck")) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT [check|nocheck]]\n", argv[0]);
    return 2;
  }
  bool c = check == "check";
  return p == "s" ? run<float>(n, repeat, c) : run<double>(n, repeat, c);
}
