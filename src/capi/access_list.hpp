#pragma once
// Turns a tasklet's map descriptors and dependency lists into the runtime's access list: one
// DataAccess per distinct range, with the union of what the maps and lists say about it. Reused
// per thread so that submitting allocates nothing in the steady state.
#include <cstddef>
#include <vector>

#include "capi/range_table.hpp"
#include "conveyor/conveyor.h"
#include "conveyor/data.hpp"

namespace conveyor::capi {

class AccessList {
 public:
  /// Starts a new tasklet (keeps the capacity).
  void clear();
  /// Adds map `index` (checked: pointer, size, direction); returns its buffer index.
  int add_map(RangeTable& ranges, Runtime& runtime, const conveyor_map_desc& map, int index);
  /// Adds a dependency on the range that contains `address` (`out`: written, else read).
  void add_dependency(const RangeTable& ranges, const void* address, bool out);
  /// The accesses, in the order ranges were first named (the buffers' order in TaskContext).
  const std::vector<DataAccess>& accesses();
  /// Whether buffer `i` is written by the tasklet.
  bool writes(std::size_t i) const { return uses_[i].write; }
  std::size_t size() const { return uses_.size(); }

 private:
  // What the maps and lists said about accesses_[i] (its mode is set from it by accesses()).
  struct Use {
    bool read = false;
    bool write = false;
    bool mapped_no_copy_in = false;  // a FROM/ALLOC map: an `out` dependency must not add a read
    bool out_dependency = false;
  };
  Use& use_of(Data data);

  // Parallel vectors; the Data handles live only in accesses_, copied once per range.
  std::vector<DataAccess> accesses_;
  std::vector<Use> uses_;
};

/// Starts a tasklet on a list and empties it again however the call ends, so that no Data handle
/// outlives the call (a thread-local list would otherwise keep unregistered data alive).
class AccessListScope {
 public:
  explicit AccessListScope(AccessList& list) : list_(list) { list_.clear(); }
  ~AccessListScope() { list_.clear(); }
  AccessListScope(const AccessListScope&) = delete;
  AccessListScope& operator=(const AccessListScope&) = delete;

 private:
  AccessList& list_;
};

}  // namespace conveyor::capi
