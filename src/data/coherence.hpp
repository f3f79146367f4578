#pragma once
// Moves replicas between memory spaces so that each task sees the latest contents of its data
// (seed 003, section 3.3), under one of two policies:
//  - coherent: MSI per replica; copy only into a space whose replica is Invalid; a write leaves
//    the writer's replica Modified and every other one Invalid; the host is brought up to date on
//    demand (a host task, acquire, wait_all, unregister).
//  - naive: around every device task, copy each input in and each output back to the host.
// Device-side work goes on the device's lane (asynchronous, in order); host-side copies are
// synchronous on the device's own copy-out lane.
//
// Device memory is a cache of the host. Each space keeps its replicas that hold a block in a
// recency list (moved to the back when a task uses them), and the driver thread ranks them by
// their next use among the tasks queued for its worker (rank_next_uses). When an allocation does
// not fit, the space's driver thread evicts the replicas needed furthest ahead (none queued
// first), least recently used first among equals: unpinned replicas whose contents exist
// elsewhere are freed at once; those that are the only valid copy are written home on the lane
// and freed once the copy has landed (they are Shared by then), so the caller waits instead of
// failing.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "conveyor/runtime.hpp"
#include "data/data_state.hpp"
#include "data/device_memory.hpp"
#include "data/transfer_stats.hpp"
#include "device/driver.hpp"
#include "device/trace.hpp"
#include "device/virtual_clock.hpp"

namespace conveyor::data {

class CoherenceEngine {
 public:
  /// `drivers[s - 1]` drives device space s.
  CoherenceEngine(Coherence policy, DeviceCopy device_copy,
                  std::vector<device::DeviceDriver*> drivers, std::uint64_t memory_limit,
                  TransferStats& stats, device::Trace* trace);
  /// Waits for the write-backs still landing.
  ~CoherenceEngine();

  int spaces() const { return static_cast<int>(drivers_.size()) + 1; }
  Coherence policy() const { return policy_; }
  DeviceCopy device_copy() const { return device_copy_; }
  DeviceMemory& memory(int space);

  /// Gives every device replica slot to a newly registered data. For a data whose home is a
  /// device (DataState::home), `home_block` is the user's memory there (DeviceDriver::
  /// adopt_external): that replica starts as the only valid one, and no host copy exists yet.
  void init(DataState& d, void* home_block = nullptr) const;

  /// Host side, any thread: the user's memory holds the latest contents afterwards (for a data
  /// whose home is a device, the host staging copy, allocated first if need be).
  void fetch_to_host(DataState& d);
  /// wait_all: the data's home holds the latest contents afterwards: fetch_to_host for host
  /// memory; for a device home, the latest contents are copied there from the host (staged
  /// through the host when they are on another device), and a strided home's block is copied
  /// back into the user's region when a write since the last copy changed it. Any thread, no task
  /// using the data.
  void fetch_home(DataState& d);
  /// A host task or acquire changed the data: host Modified, the rest Invalid.
  void commit_host_write(DataState& d);
  /// Host side, before a CPU task or an acquire uses the data with `mode`: reads fetch it home;
  /// a write-only use waits for a write-back still landing in the user's memory and takes the
  /// data over at once (host Modified), so that no eviction writes into memory the task writes.
  void prepare_host(DataState& d, Access mode);

  /// Driver thread of `space`, before launching a task, for each of its data first: a block there
  /// (allocated if needed, evicting others), pinned until unpin. False when device memory is full
  /// of replicas in use now (nothing changed then, but evictions may have started): call again
  /// after a completion or a write-back (set_wake). Throws DeviceError when the data alone exceeds
  /// the device. Reserving every buffer before copying any means that a task waiting for room
  /// holds no peer copy's source on another device (two devices' waiting tasks could hold each
  /// other's room otherwise).
  /// Returns kNoRoom, kLocal (a block here), or under peer-direct the space whose replica the
  /// task uses in place (pinned there instead).
  static constexpr int kNoRoom = -1, kLocal = 0, kNotReserved = -2;
  int reserve_on_device(DataState& d, int space, Access mode);
  /// Then, for each access: makes the reserved replica usable with `mode` (copied in on the lane
  /// when the task reads it) and returns its block. When the copy comes straight from another
  /// device's replica, that one is pinned too and its space is stored in `*peer_source` (unpin it
  /// with unpin_peer_source when the task ends), else 0. With kNotReserved, reserves first
  /// (returns nullptr when there is no room).
  void* prepare_on_device(DataState& d, int space, Access mode, int* peer_source,
                          int reservation = kNotReserved);
  /// Driver thread of `space`, after the launch was enqueued, for each access.
  void finish_on_device(DataState& d, int space, Access mode);
  /// A device task that used `d` with `mode` in `space` failed. If it wrote it, the replica there
  /// may be half written: it is dropped and the host's memory, which holds the last state copied
  /// home whole (or the user's own), is the valid copy again (under `naive` the copy home already
  /// followed the kernel on the lane: nothing to undo). A Shared replica there is dropped too: the
  /// copy that filled it may be what failed. Any thread, no runtime lock held.
  void discard_after_failure(DataState& d, int space, Access mode);
  /// A task no longer uses the replica in `space` (any thread).
  void unpin(DataState& d, int space);
  /// The task of another device whose peer copy read this replica has ended (see
  /// prepare_on_device); wakes `space`'s driver, which may be waiting for the room.
  void unpin_peer_source(DataState& d, int space);
  /// The runtime's unpin: `reservation` as reserve_on_device returned it for this task's access
  /// (peer-direct users unpin the peer's replica and wake its driver).
  void unpin(DataState& d, int space, int reservation);

  /// Prefetch (RuntimeOptions::prefetch), driver thread of `space`: when the replica there is not
  /// valid and the host's is, copies the data in on the lane into free room only (never evicting;
  /// DeviceMemory::try_allocate) and marks it Shared and prefetched. Returns false when there was
  /// no room (the caller stops prefetching for now); true otherwise, copied or not needed.
  bool prefetch(DataState& d, int space);
  /// The scheduler queued (`delta` = +1) or took (-1) a task reading the data in the own queue of
  /// `space`'s worker. Under the runtime's graph lock; eviction reads the count as a hint.
  static void note_queued(DataState& d, int space, int delta);
  /// Eviction by next use, driver thread of `space`: `reads` lists the data that the tasks queued
  /// for its worker read, in the order it will run them (a data may repeat: its first place
  /// counts). From then on eviction takes first the replicas that no queued task reads, then
  /// those read furthest ahead (Belady's choice over the known future), replacing the previous
  /// ranking. Takes no lock: the queued tasks keep their data registered.
  void rank_next_uses(int space, std::span<DataState* const> reads);

  /// Whether `space` holds a valid replica of the data. Any thread, without the data's lock: a
  /// snapshot that may change at once (schedulers ask it under the runtime's lock).
  bool valid_in(DataState& d, int space);
  /// Bytes that a task using the data with `mode` in `space` would have to copy there first (0 when
  /// it does not read it or the replica there is valid; naive copies every input). Any thread.
  std::size_t bytes_missing(DataState& d, int space, Access mode);

  /// Unregister: home up to date (fetch_home), the other device blocks back to the allocation
  /// caches, a device home's host staging copy freed. When no device can copy the latest contents
  /// home, the blocks go back all the same and DeviceError says so.
  void drop_replicas(DataState& d);

  /// Early write-back (RuntimeOptions::early_write_back), in two steps. Driver thread of `space`,
  /// under the runtime's graph lock (so that the data cannot be unregistered meanwhile): when the
  /// replica there is Modified and unused, marks it as being written home (from then on
  /// unregistering waits for the copy) and returns the record, else nullptr. Then, with no lock
  /// held, notify_write_backs enqueues the copies; the replica stays (Shared once landed).
  struct WriteBack;
  WriteBack* begin_early_write_back(DataState& d, int space);
  void notify_write_backs(int space, const std::vector<WriteBack*>& started);
  /// Write-backs ahead: when eviction makes room, it also writes home the Modified replicas that
  /// the next evictions take, up to `times` the room asked for (0: off). Before any device work.
  void set_write_back_ahead(std::size_t times) { write_back_ahead_ = times; }
  /// Write-backs enqueued on `space`'s lane that have not landed yet.
  int write_backs_in_flight(int space) const;
  /// Called (from any thread, no lock held) when memory may have come free in `space` without a
  /// task of its own finishing: a write-back landed, another device's task unpinned a replica.
  void set_wake(std::function<void(int space)> wake) { wake_ = std::move(wake); }
  /// Adds the per-space peaks and limits to `out` (after TransferStats::fill).
  void fill(RuntimeStats& out) const;
  void reset_peaks();

 private:
  struct Space;
  void fetch_to_host_locked(DataState& d, std::unique_lock<std::mutex>& lock);
  void fetch_home_locked(DataState& d, std::unique_lock<std::mutex>& lock);
  /// Under the data's lock, for a device home whose replica is not valid: the latest contents
  /// copied into it from the host (brought there first).
  void copy_home_from_host(DataState& d, std::unique_lock<std::mutex>& lock);
  /// Under the data's lock: a data whose home is a device gets its host staging copy (contents
  /// undefined; the host replica's state says whether it is valid).
  static void ensure_host(DataState& d);
  void await_write_backs(DataState& d, std::unique_lock<std::mutex>& lock);
  /// On the virtual clock: waits on `cv` until a landing clears `dozing` (see on_write_back).
  void doze(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, bool& dozing);
  /// Ends a doze: clears the flag and wakes its thread for its turn (under the waiter's mutex).
  void rouse(bool* dozing);
  int reserve_locked(DataState& d, int space, Access mode);
  /// Gives replicas' blocks back to the allocation cache now and starts write-backs, for the room
  /// asked for and ahead of it (queued in the space's `started`, enqueued by reserve_on_device
  /// once no data lock is held). `bytes`: the size of the allocation, whose blocks go first among
  /// equal candidates (taken as they are).
  std::size_t evict(int space, std::size_t missing, std::size_t bytes);
  /// Under the data's lock: marks the replica as being written home and returns the record;
  /// notify_write_backs enqueues the copy and its completion once no lock is held.
  /// Early: RuntimeOptions::early_write_back; Evicting: for the room asked for now (counted in
  /// Space::landing); Ahead: for the next evictions' room (evict()).
  enum class WriteBackKind { Early, Evicting, Ahead };
  WriteBack* start_write_back(DataState& d, int space, WriteBackKind kind);
  static void on_write_back(void* user, const char* error);
  /// A copy home from `copied_from` failed part-way over the host's copy while that was valid:
  /// another valid replica takes over, or the data is marked lost. Under d.mutex.
  void damaged_valid_host(DataState& d, int copied_from);
  // The space's recency list; under the data's lock.
  void touch(DataState& d, int space);
  void forget(DataState& d, int space);
  /// Under the data's lock, before its replicas are invalidated or dropped: counts the prefetched
  /// ones no task used as dropped.
  void drop_prefetched(DataState& d);
  /// peer-direct: the device whose replica a read-only task on `space` reads in place, or -1.
  int peer_direct_source(DataState& d, int space) const;

  Coherence policy_;
  DeviceCopy device_copy_;
  std::vector<device::DeviceDriver*> drivers_;
  std::vector<std::unique_ptr<Space>> spaces_;
  TransferStats& stats_;
  device::Trace* trace_;
  device::VirtualClock* clock_;  ///< a simulated platform's (waits must stop running), else null
  std::function<void(int)> wake_;
  mutable std::mutex pending_mutex_;  // write-backs in flight, all spaces
  std::condition_variable pending_cv_;
  int pending_ = 0;
  bool* pending_dozing_ = nullptr;  ///< the destructor waits on a virtual clock: its flag
  /// Write-backs ahead (evict()): bytes past the room asked for, as a multiple of it. 2 measured
  /// best on the H200 twin out of core (1 and 4 within 0.5 %; docs/results/runtime.md).
  std::size_t write_back_ahead_ = 2;
};

}  // namespace conveyor::data
