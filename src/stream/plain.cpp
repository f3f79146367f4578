// Far arrays and the plain kernel over them (plain.hpp).
#include "stream/plain.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <vector>

#include "conveyor/error.hpp"
#include "core/thread_team.hpp"

namespace conveyor::stream {

HostArray allocate_array(std::size_t n) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t bytes =
      std::max<std::size_t>(kHuge, (n * sizeof(double) + kHuge - 1) / kHuge * kHuge);
  void* p = std::aligned_alloc(kHuge, bytes);
  if (!p) throw Error(fmt::format("pipeline: cannot allocate {} bytes", bytes));
  madvise(p, bytes, MADV_HUGEPAGE);
  return HostArray(static_cast<double*>(p));
}

void fill_arrays(double* a, double* b, double* c, std::size_t n, int threads,
                 ThreadBinding binding) {
  core::ThreadTeam init(threads, core::ThreadTeam::placement(threads, binding));
  const std::size_t chunk = (n + threads - 1) / threads;
  init.run([&](int m) {
    const std::size_t lo = std::min(n, chunk * static_cast<std::size_t>(m));
    const std::size_t hi = std::min(n, lo + chunk);
    for (std::size_t i = lo; i < hi; ++i) a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
  });
}

double plain_run(core::ThreadTeam& team, const BlockKernel& kernel, const BlockArrays& arrays) {
  const auto threads = static_cast<std::size_t>(team.size());
  std::vector<double> partial(threads, 0.0);
  const std::size_t chunk = ((arrays.n + threads - 1) / threads + 7) / 8 * 8;
  team.run([&](int member) {
    const std::size_t lo = std::min(arrays.n, chunk * static_cast<std::size_t>(member));
    const std::size_t hi = std::min(arrays.n, lo + chunk);
    if (lo >= hi) return;
    partial[static_cast<std::size_t>(member)] =
        kernel.body(arrays.in0 + lo, arrays.in1 ? arrays.in1 + lo : nullptr,
                    arrays.out ? arrays.out + lo : nullptr, hi - lo);
  });
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

}  // namespace conveyor::stream
