#include "capi/access_list.hpp"

#include <cstdint>
#include <string>

#include "capi/status.hpp"

namespace conveyor::capi {

void AccessList::clear() {
  accesses_.clear();
  uses_.clear();
}

AccessList::Use& AccessList::use_of(Data data) {
  for (std::size_t i = 0; i < accesses_.size(); ++i)
    if (accesses_[i].data == data) return uses_[i];
  accesses_.push_back(DataAccess{std::move(data), Access::Read});
  return uses_.emplace_back();
}

int AccessList::add_map(RangeTable& ranges, Runtime& runtime, const conveyor_map_desc& map,
                        int index) {
  auto which = [index] { return "map " + std::to_string(index); };
  require(map.host_ptr != nullptr, [&] { return which() + ": host_ptr is NULL"; });
  require(map.size > 0, [&] { return which() + ": size is 0"; });
  const int d = map.direction;
  require(d == CONVEYOR_MAP_TO || d == CONVEYOR_MAP_FROM || d == CONVEYOR_MAP_TOFROM ||
              d == CONVEYOR_MAP_ALLOC,
          [&] {
            return which() + ": direction " + std::to_string(d) +
                   " is not to (0), from (1), tofrom (2) or alloc (3)";
          });
  // In integers: `host_ptr + offset` is undefined once it leaves the object (a wrapping offset);
  // an offset that wraps around memory is refused like a size that does (RangeTable::map).
  const auto base = reinterpret_cast<std::uintptr_t>(map.host_ptr);
  require(base + map.offset >= base, [&] {
    return which() + ": offset " + std::to_string(map.offset) + " wraps around memory";
  });
  Use& e = use_of(ranges.map(runtime, reinterpret_cast<void*>(base + map.offset), map.size));
  if (d == CONVEYOR_MAP_TO || d == CONVEYOR_MAP_TOFROM) e.read = true;
  if (d != CONVEYOR_MAP_TO) e.write = true;
  if (d == CONVEYOR_MAP_FROM || d == CONVEYOR_MAP_ALLOC) e.mapped_no_copy_in = true;
  return static_cast<int>(&e - uses_.data());
}

void AccessList::add_dependency(const RangeTable& ranges, const void* address, bool out) {
  Use& e = use_of(ranges.find(address));
  if (out) {
    e.write = true;
    e.out_dependency = true;
  } else {
    e.read = true;
  }
}

const std::vector<DataAccess>& AccessList::accesses() {
  for (std::size_t i = 0; i < uses_.size(); ++i) {
    const Use& e = uses_[i];
    // An `out` dependency alone may update only part of the range: its latest contents must
    // reach the task first (ReadWrite). A FROM/ALLOC map says the tasklet produces all of it.
    bool read = e.read || (e.out_dependency && !e.mapped_no_copy_in);
    accesses_[i].mode = !e.write ? Access::Read : read ? Access::ReadWrite : Access::Write;
  }
  return accesses_;
}

}  // namespace conveyor::capi
