// The `prefetch` mover: no engine and no staging; the computing thread itself issues software
// prefetches for the data `depth` blocks ahead while it computes (Pipeline calls prefetch() piece
// by piece).
#include "movers/prefetch_mover.hpp"

#include <cstdint>

namespace conveyor::movers {

void PrefetchMover::start_copy(int, int, void*, const void*, std::size_t) {
  throw Error("prefetch mover: it does not copy (stages() is false)");
}
void PrefetchMover::wait(int, int) {}

void PrefetchMover::prefetch(const void* p, std::size_t bytes) {
  auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{63};
  auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t line = first; line < end; line += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
}

}  // namespace conveyor::movers
