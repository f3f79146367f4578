// The peer for `conveyor cholesky` on CPUs: one LAPACKE potrf call on the whole matrix, OpenBLAS
// with all its threads (its own parallel, recursive potrf). Same matrix, flop count and check as
// conveyor cholesky, so the GFLOP/s compare directly.
//
//   cholesky_potrf_openblas N s|d [REPEAT]   prints one JSON object per line
#include <lapacke.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "common/blas_threads.hpp"

namespace ch = conveyor::apps::cholesky;

template <typename T>
int run(int n, int repeat) {
  ch::SpdMatrix spd(n);
  std::vector<T> a(static_cast<std::size_t>(n) * n);
  double best = 0;
  for (int r = 0; r < repeat; ++r) {
    spd.fill(a.data(), n);
    conveyor::apps::common::use_all_threads_blas();
    auto start = std::chrono::steady_clock::now();
    lapack_int info;
    if constexpr (sizeof(T) == 4)
      info = LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'L', n, reinterpret_cast<float*>(a.data()), n);
    else
      info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, reinterpret_cast<double*>(a.data()), n);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (info != 0) {
      std::fprintf(stderr, "potrf failed: info %d\n", static_cast<int>(info));
      return 1;
    }
    if (r == 0 || t < best) best = t;
  }
  double residual = ch::cholesky_residual(spd, a.data(), n);
  std::printf(
      "{\"peer\": \"openblas_potrf\", \"precision\": \"%s\", \"n\": %d, \"time_s\": %.6f, "
      "\"gflops\": %.3f, \"residual\": %.3e, \"library\": \"%s\"}\n",
      sizeof(T) == 4 ? "single" : "double", n, best, ch::cholesky_flops(n) / best / 1e9, residual,
      ch::cpu_kernel_library().c_str());
  return residual <= ch::residual_bound<T>(n) ? 0 : 1;
}

int main(int argc, char** argv) {
  // The peer gets the CPU's own BLAS kernels, as conveyor does (common/blas_threads.hpp).
  conveyor::apps::common::restart_with_the_cpus_blas_kernels(argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT]\n", argv[0]);
    return 2;
  }
  int n = std::atoi(argv[1]);
  std::string p = argv[2];
  int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  if (n <= 0 || repeat <= 0 || (p != "s" && p != "d")) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT]\n", argv[0]);
    return 2;
  }
  return p == "s" ? run<float>(n, repeat) : run<double>(n, repeat);
}
