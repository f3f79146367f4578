// The peer for `conveyor qr` on CPUs: one LAPACKE geqrf call on the whole matrix, OpenBLAS with
// all its threads (LAPACK's blocked QR, its parallelism inside the BLAS calls). Same matrix and
// flop count (4/3 n^3; 2 m n^2 - 2/3 n^3 for M x N) as conveyor qr, timed the same way (the
// factorisation alone, fastest of REPEAT, the matrix regenerated before each), so the GFLOP/s
// compare directly.
//
//   qr_geqrf_lapacke N s|d [REPEAT [M]]   prints one JSON object; M: rows (default N)
#include <lapacke.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/blas_threads.hpp"
#include "qr/qr_matrix.hpp"

namespace qr = conveyor::apps::qr;

namespace {

lapack_int geqrf(int m, int n, float* a, float* tau, float* work, int lwork) {
  return LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}
lapack_int geqrf(int m, int n, double* a, double* tau, double* work, int lwork) {
  return LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, a, m, tau, work, lwork);
}

template <typename T>
int run(int m, int n, int repeat) {
  qr::GeneralMatrix matrix(m, n);
  std::vector<T> a(static_cast<std::size_t>(m) * n), tau(static_cast<std::size_t>(n));
  // LAPACK's own workspace query, once: the _work variant then skips LAPACKE's NaN scan and
  // allocation, which conveyor qr's kernels skip too.
  T query = 0;
  if (geqrf(m, n, a.data(), tau.data(), &query, -1) != 0) return 1;
  std::vector<T> work(static_cast<std::size_t>(query));
  conveyor::apps::common::use_all_threads_blas();
  double best = 0;
  for (int r = 0; r < repeat; ++r) {
    matrix.fill(a.data(), m);
    auto start = std::chrono::steady_clock::now();
    lapack_int info = geqrf(m, n, a.data(), tau.data(), work.data(), static_cast<int>(work.size()));
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (info != 0) {
      std::fprintf(stderr, "geqrf failed: info %d\n", static_cast<int>(info));
      return 1;
    }
    if (r == 0 || t < best) best = t;
  }
  std::printf(
      "{\"peer\": \"lapacke_geqrf\", \"precision\": \"%s\", \"m\": %d, \"n\": %d, "
      "\"time_s\": %.6f, \"gflops\": %.3f, \"library\": \"%s\"}\n",
      sizeof(T) == 4 ? "single" : "double", m, n, best, qr::qr_flops(m, n) / best / 1e9,
      (conveyor::apps::common::blas_library() + " + LAPACKE").c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The peer gets the CPU's own BLAS kernels, as conveyor does (common/blas_threads.hpp).
  conveyor::apps::common::restart_with_the_cpus_blas_kernels(argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT [M]]\n", argv[0]);
    return 2;
  }
  int n = std::atoi(argv[1]);
  std::string p = argv[2];
  int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  int m = argc > 4 ? std::atoi(argv[4]) : n;
  if (n <= 0 || repeat <= 0 || m < n || (p != "s" && p != "d")) {
    std::fprintf(stderr, "usage: %s N s|d [REPEAT [M]]  (M >= N: rows, default N)\n", argv[0]);
    return 2;
  }
  return p == "s" ? run<float>(m, n, repeat) : run<double>(m, n, repeat);
}
