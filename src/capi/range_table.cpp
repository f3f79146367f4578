#include "capi/range_table.hpp"

#include <fmt/format.h>

#include <iterator>

#include "capi/status.hpp"

namespace conveyor::capi {
namespace {

std::uintptr_t address_of(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

std::string describe(std::uintptr_t start, std::size_t size) {
  return fmt::format("[{:#x}, {:#x}) ({} bytes)", start, start + size, size);
}

}  // namespace

Data RangeTable::map(Runtime& runtime, void* start, std::size_t size) {
  const std::uintptr_t begin = address_of(start);
  require(size > 0, "a range of 0 bytes");
  require(begin + size > begin,
          [&] { return "range " + describe(begin, size) + " wraps around memory"; });
  std::lock_guard lock(mutex_);
  auto next = ranges_.lower_bound(begin);
  if (next != ranges_.end() && next->first == begin) {
    if (next->second.size == size) return next->second.data;
    throw CapiError(CONVEYOR_ERROR_OVERLAP,
                    fmt::format("range {} starts where the registered range {} does but has "
                                "another size; map identical ranges, or unregister the old one",
                                describe(begin, size), describe(begin, next->second.size)));
  }
  auto clash = [&](std::uintptr_t other, std::size_t other_size) {
    return CapiError(CONVEYOR_ERROR_OVERLAP,
                     fmt::format("range {} overlaps the registered range {}; map identical "
                                 "ranges, or unregister the old one",
                                 describe(begin, size), describe(other, other_size)));
  };
  if (next != ranges_.end() && next->first < begin + size)
    throw clash(next->first, next->second.size);
  if (next != ranges_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second.size > begin)
      throw clash(previous->first, previous->second.size);
  }
  Data data = runtime.register_bytes(start, 1, size, fmt::format("range {:#x}", begin));
  ranges_.emplace_hint(next, begin, Range{size, data});
  return data;
}

Data RangeTable::find(const void* address) const {
  const std::uintptr_t at = address_of(address);
  std::lock_guard lock(mutex_);
  auto next = ranges_.upper_bound(at);
  if (next != ranges_.begin()) {
    auto range = std::prev(next);
    if (at < range->first + range->second.size) return range->second.data;
  }
  throw CapiError(CONVEYOR_ERROR_UNKNOWN_ADDRESS,
                  fmt::format("dependency address {:#x} lies in no mapped or registered range "
                              "(map it in this tasklet, or call conveyor_register first)",
                              at));
}

Data RangeTable::take(const void* start) {
  std::lock_guard lock(mutex_);
  auto range = ranges_.find(address_of(start));
  if (range == ranges_.end())
    throw CapiError(CONVEYOR_ERROR_UNKNOWN_ADDRESS,
                    fmt::format("no registered range starts at {:#x}", address_of(start)));
  Data data = range->second.data;
  ranges_.erase(range);
  return data;
}

}  // namespace conveyor::capi
