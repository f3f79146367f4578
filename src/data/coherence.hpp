#pragma once
// Moves replicas between memory spaces so that each task sees the latest contents of its data
// (seed 003, section 3.3), under one of two policies:
//  - coherent: MSI per replica; copy only into a space whose replica is Invalid; a write leaves
//    the writer's replica Modified and every other one Invalid; the host is brought up to date on
//    demand (a host task, acquire, wait_all, unregister).
//  - naive: around every device task, copy each input in and each output back to the host.
// Device-side work goes on the device's lane (asynchronous, in order); host-side copies are
// synchronous on the device's own copy-out lane.
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "conveyor/runtime.hpp"
#include "data/data_state.hpp"
#include "data/device_memory.hpp"
#include "data/transfer_stats.hpp"
#include "device/driver.hpp"
#include "device/trace.hpp"

namespace conveyor::detail {

class CoherenceEngine {
 public:
  /// `drivers[s - 1]` drives device space s.
  CoherenceEngine(Coherence policy, DeviceCopy device_copy,
                  std::vector<runtime::DeviceDriver*> drivers, std::uint64_t memory_limit,
                  TransferStats& stats, runtime::Trace* trace);
  ~CoherenceEngine();

  int spaces() const { return static_cast<int>(drivers_.size()) + 1; }
  Coherence policy() const { return policy_; }
  DeviceMemory& memory(int space) { return *memories_[space - 1]; }

  /// Gives every device replica slot to a newly registered data.
  void init(DataState& d) const;

  /// Host side, any thread: the user's memory holds the latest contents afterwards.
  void fetch_to_host(DataState& d);
  /// A host task or acquire changed the data: host Modified, the rest Invalid.
  void commit_host_write(DataState& d);

  /// Driver thread of `space`, before launching a task: a replica there that the task can use with
  /// `mode` (copied in on the lane when the task reads it), pinned until unpin. Returns its block.
  /// Throws DeviceError when memory runs out (nothing is changed then).
  void* prepare_on_device(DataState& d, int space, Access mode);
  /// Driver thread of `space`, after the launch was enqueued, for each access.
  void finish_on_device(DataState& d, int space, Access mode);
  void unpin(DataState& d, int space);

  /// Whether `space` holds a valid replica of the data. Any thread (takes the data's lock).
  bool valid_in(DataState& d, int space);
  /// Bytes that a task using the data with `mode` in `space` would have to copy there first (0 when
  /// it does not read it or the replica there is valid; naive copies every input). Any thread.
  std::size_t bytes_missing(DataState& d, int space, Access mode);

  /// Unregister: host up to date, device blocks back to the allocation caches.
  void drop_replicas(DataState& d);

  /// The runtime's registered data, for eviction; `visit` gets each one until it returns false.
  using ForEachData = std::function<void(const std::function<bool(DataState&)>& visit)>;
  void set_registry(ForEachData for_each) { for_each_ = std::move(for_each); }

 private:
  void fetch_to_host_locked(DataState& d);
  bool evict(int space, std::size_t missing);
  /// peer-direct: the device whose replica a read-only task on `space` reads in place, or -1.
  int peer_direct_source(DataState& d, int space) const;

  Coherence policy_;
  DeviceCopy device_copy_;
  std::vector<runtime::DeviceDriver*> drivers_;
  std::vector<std::unique_ptr<DeviceMemory>> memories_;
  TransferStats& stats_;
  runtime::Trace* trace_;
  ForEachData for_each_;
};

}  // namespace conveyor::detail
