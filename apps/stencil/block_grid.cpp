#include "stencil/block_grid.hpp"

#include <algorithm>

namespace conveyor::apps::stencil {

Communication strip_messages(const BlockGrid& g, int n, int sweeps) {
  const auto borders =
      static_cast<std::uint64_t>(std::min(g.grid.p, g.tiles) - 1 + std::min(g.grid.q, g.tiles) - 1);
  const auto t = static_cast<std::uint64_t>(g.tiles), s = static_cast<std::uint64_t>(sweeps);
  return {s * 2 * t * borders, s * 2 * static_cast<std::uint64_t>(n) * borders * sizeof(double)};
}

}  // namespace conveyor::apps::stencil
