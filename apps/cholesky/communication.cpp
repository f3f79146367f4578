#include "cholesky/communication.hpp"

#include <algorithm>

namespace conveyor::apps::cholesky {

CommunicationVolume block_cyclic_volume(int n, int block, ProcessGrid grid, std::size_t elem_size) {
  CommunicationVolume v;
  if (n <= 0 || block <= 0) return v;
  const long t = (n + block - 1) / block;
  const long p = grid.p, q = grid.q;
  auto size = [&](long i) {
    return static_cast<std::uint64_t>(std::min<long>(block, n - i * block));
  };
  for (long k = 0; k < t; ++k) {
    long below = t - 1 - k;  // panel tiles under A_kk
    auto diag = static_cast<std::uint64_t>(std::min(p, below) - (below >= p ? 1 : 0));
    v.messages += diag;
    v.bytes += diag * size(k) * size(k) * elem_size;
    for (long i = k + 1; i < t; ++i) {
      long after = t - 1 - i;  // rows under row i
      auto panel = static_cast<std::uint64_t>(std::min(q, i - k) + std::min(p, after) -
                                              (after >= p ? 1 : 0) - (i - k >= q ? 1 : 0));
      v.messages += panel;
      v.bytes += panel * size(i) * size(k) * elem_size;
    }
  }
  return v;
}

}  // namespace conveyor::apps::cholesky
