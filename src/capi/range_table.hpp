#pragma once
// The C interface's table of host ranges (the seed's host-object table): each mapped or
// registered range [start, start + size) is one Data of the runtime, found again by its exact
// (start, size) when mapped again and by any address inside it when named as a dependency.
// Ranges never overlap: the runtime's coherence tracks each Data on its own, so two Data over
// the same bytes would each believe their copy is the latest.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "conveyor/data.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::capi {

class RangeTable {
 public:
  /// The Data of exactly [start, start + size), registered with `runtime` when new. Throws
  /// CapiError(CONVEYOR_ERROR_OVERLAP) naming both ranges when it overlaps a different one.
  Data map(Runtime& runtime, void* start, std::size_t size);
  /// The Data whose range contains `address`; CapiError(CONVEYOR_ERROR_UNKNOWN_ADDRESS) if none.
  Data find(const void* address) const;
  /// Removes the range that starts at `start` and returns its Data (for unregister).
  Data take(const void* start);

 private:
  struct Range {
    std::size_t size;
    Data data;
  };
  mutable std::mutex mutex_;
  std::map<std::uintptr_t, Range> ranges_;  // by start address
};

}  // namespace conveyor::capi
