#pragma once
// What the layer keeps per distributed data, on every rank. Every rank sees the same flow of
// submissions, so `version` and `holders` are the same everywhere without any message: they are
// how a rank decides, alone and in agreement with the others, which messages a task needs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/data.hpp"
#include "distributed/reserved_memory.hpp"

namespace conveyor::distributed {

struct DataState {
  const void* layer = nullptr;  ///< the Distributed::Impl it belongs to
  std::uint64_t tag = 0;        ///< registration order (global)
  int owner = 0;
  std::size_t elem_size = 1, rows = 0, cols = 1;
  void* user_ptr = nullptr;  ///< this rank's memory, when the user gave some
  std::size_t user_ld = 0;
  LayerBuffer buffer;         ///< the layer's memory when the user gave none
  Data local;                 ///< this rank's copy in the runtime (lazy off the owner)
  std::uint64_t version = 0;  ///< writes so far
  std::vector<bool> holders;  ///< ranks whose copy holds `version`
  std::string name;
  bool registered = true;

  std::size_t bytes() const { return elem_size * rows * cols; }
  std::string describe() const {
    return name.empty() ? "data #" + std::to_string(tag) : "'" + name + "'";
  }
};

}  // namespace conveyor::distributed
