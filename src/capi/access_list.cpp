#include "capi/access_list.hpp"

#include <string>

#include "capi/status.hpp"

namespace conveyor::capi {

void AccessList::clear() {
  entries_.clear();
  accesses_.clear();
}

std::size_t AccessList::entry_for(const Data& data) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].data == data) return i;
  entries_.push_back(Entry{data});
  return entries_.size() - 1;
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
  Data data = ranges.map(runtime, static_cast<char*>(map.host_ptr) + map.offset, map.size);
  Entry& e = entries_[entry_for(data)];
  if (d == CONVEYOR_MAP_TO || d == CONVEYOR_MAP_TOFROM) e.read = true;
  if (d != CONVEYOR_MAP_TO) e.write = true;
  if (d == CONVEYOR_MAP_FROM || d == CONVEYOR_MAP_ALLOC) e.mapped_no_copy_in = true;
  return static_cast<int>(&e - entries_.data());
}

void AccessList::add_dependency(const RangeTable& ranges, const void* address, bool out) {
  Data data = ranges.find(address);
  Entry& e = entries_[entry_for(data)];
  if (out) {
    e.write = true;
    e.out_dependency = true;
  } else {
    e.read = true;
  }
}

const std::vector<DataAccess>& AccessList::accesses() {
  accesses_.clear();
  for (const Entry& e : entries_) {
    // An `out` dependency alone may update only part of the range: its latest contents must
    // reach the task first (ReadWrite). A FROM/ALLOC map says the tasklet produces all of it.
    bool read = e.read || (e.out_dependency && !e.mapped_no_copy_in);
    Access mode = !e.write ? Access::Read : read ? Access::ReadWrite : Access::Write;
    accesses_.push_back(DataAccess{e.data, mode});
  }
  return accesses_;
}

}  // namespace conveyor::capi
