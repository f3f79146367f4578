// The tile QR's TS update (tpmqrt, most of its flops) against gemm on one core, and the update's
// two products on their own: the two updates `conveyor qr` on CPUs may run (LAPACK's ?tpmqrt with
// l = 0, which applies the reflectors ib at a time in WY form: W = A_p + V_pᵀ B, W = T_pᵀ W,
// A_p -= W, B -= V_p W, each product a gemm call; and the fused kernel of the same arithmetic,
// qr/fused_ts_update.hpp, where the CPU has AVX2 and FMA), two b x b x b gemm calls of the same
// flop count (4 b³), and LAPACK's b / ib products W = V_pᵀ B (ib x b x b) and B -= V_p W
// (b x b x ib) each timed alone (2 b³ each in all). One BLAS thread. Rounds interleave the kernels
// (the order rotates), each timing a batch of calls; the figure is the median over the rounds, on
// the wall clock and in the thread's CPU time (which leaves out the time other processes held the
// core). "vs gemm" is the rate over gemm's.
//
//   qr_tpmqrt_vs_gemm TILE IB [ROUNDS] [s|d]    e.g. 256 32 15 d
#include <cblas.h>
#include <lapacke.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/blas_threads.hpp"
#include "common/cache_line_vector.hpp"
#include "common/median.hpp"
#include "common/thread_scratch.hpp"
#include "qr/fused_ts_update.hpp"
#include "qr/qr_cpu_kernels.hpp"

namespace qr = conveyor::apps::qr;

namespace {

// C = alpha op(A) B + beta C, column-major, by precision.
void gemm(bool trans_a, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}
void gemm(bool trans_a, int m, int n, int k, double alpha, const double* a, int lda,
          const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans, CblasNoTrans, m, n, k, alpha, a,
              lda, b, ldb, beta, c, ldc);
}

// LAPACK's ?tpmqrt (Q^T, l = 0) on b x b tiles, what `conveyor qr` runs with
// CONVEYOR_QR_TS_UPDATE=lapack.
void lapack_tpmqrt(int b, int ib, const float* v, const float* t, float* a, float* c) {
  LAPACKE_stpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', b, b, b, 0, ib, v, b, t, ib, a, b, c, b,
                       conveyor::apps::common::thread_scratch<float>(std::size_t(b) * ib));
}
void lapack_tpmqrt(int b, int ib, const double* v, const double* t, double* a, double* c) {
  LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', b, b, b, 0, ib, v, b, t, ib, a, b, c, b,
                       conveyor::apps::common::thread_scratch<double>(std::size_t(b) * ib));
}

// Tiles on cache lines, as `conveyor qr` allocates its matrix (common/cache_line_vector.hpp).
template <typename T>
using Tile = conveyor::apps::common::CacheLineVector<T>;

template <typename T>
Tile<T> random_tile(int b, std::mt19937& rng) {
  std::uniform_real_distribution<T> u(-1, 1);
  Tile<T> x(static_cast<std::size_t>(b) * b);
  for (auto& e : x) e = u(rng);
  return x;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Kernel {
  std::string name;
  double flops;
  std::function<void()> call;
  std::vector<double> wall, cpu;  // seconds per call, one per round
};

template <typename T>
int run(int b, int ib, int rounds) {
  conveyor::apps::common::use_single_threaded_blas();
  std::mt19937 rng(7);
  const double b3 = double(b) * b * b;
  // The reflectors of a tpqrt of [R; V] (a TS step), and the tiles the update works on:
  // orthogonal transformations keep them bounded however often they are applied.
  auto r = random_tile<T>(b, rng), v = random_tile<T>(b, rng);
  Tile<T> t(static_cast<std::size_t>(ib) * b);
  qr::cpu_tpqrt<T>(b, b, ib, r.data(), b, v.data(), b, t.data(), ib);
  auto a = random_tile<T>(b, rng), c = random_tile<T>(b, rng);
  // The gemm-only kernels' tiles: y += small x x and y -= small V_p W with W = V_pᵀ x (beta 0)
  // grow by a bounded step per call.
  auto x = random_tile<T>(b, rng), y = random_tile<T>(b, rng);
  Tile<T> w(static_cast<std::size_t>(ib) * b);
  const T small = T(1e-6);
  std::vector<Kernel> kernels = {
      {"gemm (2 x b^3)",
       4 * b3,
       [&] {
         gemm(false, b, b, b, small, x.data(), b, x.data(), b, T(1), y.data(), b);
         gemm(false, b, b, b, small, x.data(), b, x.data(), b, T(1), y.data(), b);
       },
       {},
       {}},
      {"tpmqrt LAPACK",
       4 * b3,
       [&] { lapack_tpmqrt(b, ib, v.data(), t.data(), a.data(), c.data()); },
       {},
       {}},
      {"tpmqrt fused",
       4 * b3,
       [&] {
         qr::fused_ts_update<T>(true, b, b, b, ib, v.data(), b, t.data(), ib, a.data(), b, c.data(),
                                b);
       },
       {},
       {}},
      {"W = V_p^T B",
       2 * b3,
       [&] {
         for (int p = 0; p < b; p += ib)
           gemm(true, std::min(ib, b - p), b, b, T(1), v.data() + std::size_t(p) * b, b, x.data(),
                b, T(0), w.data(), ib);
       },
       {},
       {}},
      {"B -= V_p W",
       2 * b3,
       [&] {
         for (int p = 0; p < b; p += ib)
           gemm(false, b, b, std::min(ib, b - p), -small, v.data() + std::size_t(p) * b, b,
                w.data(), ib, T(1), y.data(), b);
       },
       {},
       {}},
  };
  if (!qr::fused_ts_update_available())  // not an x86-64 CPU with AVX2 and FMA
    kernels.erase(kernels.begin() + 2);
  // A batch of about 20 ms per timing (at 10 GFLOP/s or faster).
  const int batch = std::max(1, static_cast<int>(0.02 * 10e9 / (4 * b3)));
  for (auto& k : kernels) k.call();  // warm the workspaces and caches
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t q = 0; q < kernels.size(); ++q) {
      Kernel& k = kernels[(q + static_cast<std::size_t>(round)) % kernels.size()];
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = thread_cpu_seconds();
      for (int i = 0; i < batch; ++i) k.call();
      k.cpu.push_back((thread_cpu_seconds() - cpu_start) / batch);
      k.wall.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / batch);
    }
  }
  using conveyor::apps::common::median;
  const double gemm_wall = median(kernels[0].wall) / kernels[0].flops;
  const double gemm_cpu = median(kernels[0].cpu) / kernels[0].flops;
  std::printf(
      "# %s, one BLAS thread; tile %d, ib %d, %s; medians of %d interleaved rounds of %d calls\n",
      qr::cpu_kernel_library().c_str(), b, ib, sizeof(T) == 4 ? "single" : "double", rounds, batch);
  std::printf("%-16s %10s %10s %8s %10s %10s %8s\n", "kernel", "wall_ms", "GFLOP/s", "vs_gemm",
              "cpu_ms", "GFLOP/s", "vs_gemm");
  for (const auto& k : kernels) {
    const double wall = median(k.wall), cpu = median(k.cpu);
    std::printf("%-16s %10.4f %10.2f %8.3f %10.4f %10.2f %8.3f\n", k.name.c_str(), wall * 1e3,
                k.flops / wall / 1e9, gemm_wall * k.flops / wall, cpu * 1e3, k.flops / cpu / 1e9,
                gemm_cpu * k.flops / cpu);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  conveyor::apps::common::restart_with_the_cpus_blas_kernels(argv);
  const char* usage = "usage: %s TILE IB [ROUNDS] [s|d]   (1 <= IB <= TILE, ROUNDS >= 1)\n";
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, usage, argv[0]);
    return 2;
  }
  const int b = std::atoi(argv[1]), ib = std::atoi(argv[2]);
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 15;
  const std::string p = argc > 4 ? argv[4] : "d";
  if (b < 1 || ib < 1 || ib > b || rounds < 1 || (p != "s" && p != "d")) {
    std::fprintf(stderr, usage, argv[0]);
    return 2;
  }
  if (!qr::cpu_kernels_available()) {
    std::fprintf(stderr, "%s: built without LAPACKE\n", argv[0]);
    return 2;
  }
  return p == "s" ? run<float>(b, ib, rounds) : run<double>(b, ib, rounds);
}
