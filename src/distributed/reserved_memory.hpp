#pragma once
// The layer's own buffers (a copy on a rank that registered no memory for the data): real, zeroed
// memory; or, on a simulated cluster that runs no kernels, an address range without memory behind
// it (PROT_NONE: a stray access faults instead of reading garbage), so that a 64-node run of a
// large matrix does not need the matrix's memory many times over in one process.
#include <cstddef>
#include <memory>

namespace conveyor::distributed {

using LayerBuffer = std::shared_ptr<std::byte>;

LayerBuffer zeroed_buffer(std::size_t bytes);
LayerBuffer reserve_address_range(std::size_t bytes);

}  // namespace conveyor::distributed
