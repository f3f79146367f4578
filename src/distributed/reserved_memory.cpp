#include "distributed/reserved_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include "conveyor/error.hpp"

namespace conveyor::distributed {

LayerBuffer zeroed_buffer(std::size_t bytes) {
  return LayerBuffer(new std::byte[bytes](), std::default_delete<std::byte[]>());
}

LayerBuffer reserve_address_range(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw Error(fmt::format("cannot reserve {} bytes of address space", bytes));
  return LayerBuffer(static_cast<std::byte*>(p), [bytes](std::byte* q) { munmap(q, bytes); });
}

}  // namespace conveyor::distributed
