#pragma once
// The runtime's record of one registered Data: its shape, the user's memory (the host replica),
// one replica per device memory space with its MSI state, and the tasks that last touched it (for
// dependency inference).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conveyor/data.hpp"
#include "device/driver.hpp"

namespace conveyor::runtime {
struct Task;
}

namespace conveyor::data {

/// MSI state of one replica. Modified: the only up-to-date replica besides other Shared ones made
/// from it, and the host is stale; Shared: up to date; Invalid: stale or absent.
enum class Msi : std::uint8_t { Invalid, Shared, Modified };
inline bool valid(Msi s) { return s != Msi::Invalid; }
const char* to_string(Msi s);

/// A replica's state: written under the data's lock, read without it by schedulers, which only
/// estimate where data is and must never wait for a data lock while they hold the runtime's (a
/// thread holding a data lock may be inside a blocking copy that needs a completion callback, and
/// callbacks take the runtime's lock). Relaxed: exact answers are taken under the data's lock.
class MsiCell {
 public:
  MsiCell(Msi s = Msi::Invalid) : v_(s) {}  // NOLINT: converts from Msi like the plain enum did
  MsiCell(const MsiCell& o) : v_(o.load()) {}
  MsiCell& operator=(const MsiCell& o) { return *this = o.load(); }
  MsiCell& operator=(Msi s) {
    v_.store(s, std::memory_order_relaxed);
    return *this;
  }
  operator Msi() const { return load(); }  // NOLINT
  Msi load() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<Msi> v_;
};

struct Replica {
  void* block = nullptr;  ///< device allocation (cl_mem, device pointer); the user's memory on host
  MsiCell state = Msi::Invalid;
  int pins = 0;  ///< tasks in flight using the block; a pinned block is never evicted
  /// An eviction's copy home is on the device's lane: the block stays until it has landed, and
  /// the host is not valid before (host users wait on DataState::moved).
  bool writing_back = false;
  /// The write-back in flight was started ahead of the eviction that takes the replica.
  bool written_ahead = false;
  /// DataState::version when the write-back was enqueued: a write since then makes it stale.
  std::uint64_t write_back_version = 0;
  /// The space's recency list (least recently used first), linked through the replicas that
  /// hold a block; guarded by that space's list lock in the CoherenceEngine.
  DataState* lru_prev = nullptr;
  DataState* lru_next = nullptr;
  bool in_lru = false;
  /// peer-direct: for each task in flight here reading a peer's replica in place, that peer's
  /// space (whose replica it pins).
  std::vector<int> direct_from;
  /// Made valid by a prefetch (RuntimeOptions::prefetch) and not used by a task yet: counted as
  /// used when a task reserves it, as dropped when evicted or invalidated first.
  bool prefetched = false;
  /// Tasks waiting in the own queue of this space's worker that read the data: eviction prefers
  /// replicas no queued task needs. Written by the scheduler under the runtime's graph lock, read
  /// by eviction without it, so both go through std::atomic_ref (relaxed: a hint, not a pin).
  int queued_readers = 0;
  /// Eviction by next use (CoherenceEngine::rank_next_uses): the space's ranking epoch in the high
  /// 32 bits, and in the low ones the position, in the order the space's worker will run them, of
  /// the first task queued there that reads the data. Another epoch: no queued task reads it.
  /// Written and read by the space's driver thread only.
  std::uint64_t next_use = 0;
};

/// Space 0 is the host; spaces 1..N are the devices in the runtime's order.
inline constexpr int kHostSpace = 0;

struct DataState {
  const void* owner = nullptr;  ///< the Runtime::Impl it belongs to
  std::size_t elem_size = 1;
  std::size_t rows = 0;
  std::size_t cols = 1;
  std::size_t ld = 0;
  /// The host replica's memory: the user's, or for a data whose home is a device a staging copy
  /// allocated when a host user first needs one (set under `mutex`, freed at unregister).
  char* host = nullptr;
  std::string name;
  /// Where the data lives when no task uses it: kHostSpace (the user's host memory), or the space
  /// of the device whose memory the user registered (Runtime::register_device_bytes). That
  /// replica is used in place: never evicted nor freed, and wait_all and unregister bring the
  /// latest contents back into it. Fixed at registration.
  int home = kHostSpace;
  std::string home_device;               ///< the home device's id ("cuda:0"); empty for the host
  std::unique_ptr<char[]> host_staging;  ///< `host` when the home is a device (guarded by `mutex`)
  /// A strided device home (Runtime::register_device_matrix_bytes with ld > rows): the user's
  /// region, `home_pitch` bytes between columns. The home replica is then a contiguous block the
  /// runtime allocated on the home device, filled from the region at registration, copied back to
  /// it by fetch_home when `home_region_version` (the DataState::version the region holds) is
  /// behind, and freed by drop_replicas. Null for a contiguous home (used in place) or the host.
  char* home_region = nullptr;
  std::size_t home_pitch = 0;
  std::uint64_t home_region_version = 0;  ///< guarded by `mutex`
  std::atomic<bool> registered{true};
  bool partitioned = false;     ///< a matrix whose tiles are registered (guarded by the graph lock)
  DataState* parent = nullptr;  ///< the matrix a tile belongs to
  std::size_t registry_slot = 0;  ///< position in the runtime's list of registered data

  std::mutex mutex;               ///< guards replicas
  std::condition_variable moved;  ///< a write-back landed (with `mutex`)
  /// On a virtual clock: the threads waiting on `moved`, which stopped running; the one landing
  /// the copy clears their flag and wakes them for their turn, in this order (guarded by `mutex`).
  std::vector<bool*> dozing;
  std::vector<Replica> replicas;
  std::uint64_t version = 0;  ///< bumped by every write (guarded by `mutex`)
  /// A copy home failed part-way: the user's memory holds a mix until a whole copy lands or a
  /// host task writes it (guarded by `mutex`).
  bool host_damaged = false;
  /// Set when no whole state is left: a failed task's half-written replica was dropped while the
  /// host was damaged. Reads and unregister report it (guarded by `mutex`).
  std::string lost;

  // Guarded by the runtime's graph lock.
  runtime::Task* last_writer = nullptr;
  /// A task that should have written it failed or was cancelled: later tasks using it are
  /// cancelled too, until wait_all reports the failure.
  bool poisoned = false;
  std::vector<runtime::Task*> readers;  ///< readers since last_writer

  std::size_t bytes() const { return rows * cols * elem_size; }
  device::HostRegion host_region() const { return {host, rows * elem_size, cols, ld * elem_size}; }
  bool device_home() const { return home != kHostSpace; }
  /// "'x' (vector of 4096 bytes)" for messages.
  std::string describe() const;
};

struct DataAccess {
  static Data make(std::shared_ptr<DataState> state) { return Data(std::move(state)); }
  static DataState* state(const Data& data) { return data.state_.get(); }
};

}  // namespace conveyor::data
