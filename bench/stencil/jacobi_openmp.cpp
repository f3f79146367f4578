// The peer for `conveyor stencil` on CPUs: the same Jacobi sweeps as one plain OpenMP loop over the
// whole grid on every core, no tiles and no runtime. Same grid, same arithmetic in the same order
// (stencil/point.hpp, so the result is bit for bit conveyor's), same traffic count (2 * 8 * n^2
// bytes per sweep), timed the same way (the sweeps alone, fastest of REPEAT, the grid refilled
// before each).
//
//   stencil_jacobi_openmp N SWEEPS [REPEAT]   prints one JSON object
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "stencil/grid.hpp"
#include "stencil/point.hpp"

namespace st = conveyor::apps::stencil;

namespace {

// One sweep: columns shared statically among the threads (equal work per column), the rows of a
// column in one loop the compiler vectorises, as conveyor's CPU tile kernel does.
void sweep(const double* in, double* out, long n, const st::Coefficients& c) {
#pragma omp parallel for schedule(static)
  for (long col = 0; col < n; ++col) {
    const double* x = in + col * n;
    double* __restrict o = out + col * n;
    if (col == 0 || col == n - 1) {
      for (long r = 0; r < n; ++r) o[r] = x[r];
      continue;
    }
    const double* left = x - n;
    const double* right = x + n;
    o[0] = x[0];
    o[n - 1] = x[n - 1];
    for (long r = 1; r + 1 < n; ++r)
      o[r] = st::point(c, x[r], x[r - 1], x[r + 1], left[r], right[r]);
  }
}

// First touch on the threads that sweep the columns later.
void fill(double* grid, long n) {
#pragma omp parallel for schedule(static)
  for (long col = 0; col < n; ++col)
    for (long r = 0; r < n; ++r)
      grid[r + col * n] = st::initial_value(static_cast<int>(r), static_cast<int>(col));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 2 ? std::atoi(argv[1]) : 0;
  const int sweeps = argc > 2 ? std::atoi(argv[2]) : 0;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  if (n <= 0 || sweeps <= 0 || repeat <= 0) {
    std::fprintf(stderr, "usage: %s N SWEEPS [REPEAT]\n", argv[0]);
    return 2;
  }
  const std::size_t cells = static_cast<std::size_t>(n) * n;
  std::unique_ptr<double[]> a(new double[cells]), b(new double[cells]);
  const st::Coefficients c;
  double best = 0;
  for (int rep = 0; rep < repeat; ++rep) {
    fill(a.get(), n);
    fill(b.get(), n);
    double* in = a.get();
    double* out = b.get();
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < sweeps; ++s) {
      sweep(in, out, n, c);
      std::swap(in, out);
    }
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep == 0 || t < best) best = t;
  }
  std::printf(
      "{\"peer\": \"openmp_jacobi\", \"n\": %d, \"sweeps\": %d, \"threads\": %d, \"time_s\": %.6f, "
      "\"gbs\": %.3f}\n",
      n, sweeps, omp_get_max_threads(), best, sweeps * st::sweep_bytes(n) / best / 1e9);
  return 0;
}
