#pragma once
// What the layer keeps per distributed data, on every rank. Every rank sees the same flow of
// submissions, so `version` and `holders` are the same everywhere without any message: they are
// how a rank decides, alone and in agreement with the others, which messages a task needs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
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
  /// Per rank, for `version`: copies it sent, and messages between it and the version's first
  /// holder (the relay's bookkeeping, the same on every rank).
  std::vector<int> sent, hops;
  std::string name;
  bool registered = true;

  std::size_t bytes() const { return elem_size * rows * cols; }

  /// A new version (or the first), held by `rank` alone.
  void only_holder(int rank) {
    holders.assign(holders.size(), false);
    sent.assign(holders.size(), 0);
    hops.assign(holders.size(), 0);
    holders[static_cast<std::size_t>(rank)] = true;
  }
  /// `to` received the current version from `from`.
  void add_holder(int from, int to) {
    holders[static_cast<std::size_t>(to)] = true;
    hops[static_cast<std::size_t>(to)] = hops[static_cast<std::size_t>(from)] + 1;
    ++sent[static_cast<std::size_t>(from)];
  }
  /// Which holder sends the next copy of the current version. With `relay`, the one that could
  /// send soonest counting each message as one step (its hops from the first holder plus the
  /// copies it sent already; ties: fewer hops, then the owner, then the lower rank): the readers
  /// of a version get it along a binomial-like tree, so one NIC does not carry every copy.
  /// Without, the owner (always a holder).
  int source(bool relay) const {
    if (!relay) return owner;
    int best = owner;
    auto key = [&](int r) {
      auto i = static_cast<std::size_t>(r);
      return std::make_tuple(hops[i] + sent[i], hops[i], r == owner ? 0 : 1, r);
    };
    for (int r = 0; r < static_cast<int>(holders.size()); ++r)
      if (holders[static_cast<std::size_t>(r)] && key(r) < key(best)) best = r;
    return best;
  }
  std::string describe() const {
    return name.empty() ? "data #" + std::to_string(tag) : "'" + name + "'";
  }
};

}  // namespace conveyor::distributed
