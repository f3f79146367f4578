#pragma once
// The allocator of one device memory space: a cache of freed blocks by exact size (device
// allocation is slow: cudaMalloc synchronises, OpenCL drivers allocate lazily and at a cost; a
// real free is slow too: cudaFree waits for the whole device), a capacity limit that counts the
// cached blocks, and real allocations counted. When a request does not fit, the caller's eviction
// hook gives replicas' blocks back to the cache (or starts writing them home, which gives them
// back later: the request then waits, see allocate()); a cached block of the size asked for is
// reused as it is, and cached blocks of other sizes are freed for real only as far as the limit
// needs. Everything cached is freed at the end (trim, the destructor).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "data/transfer_stats.hpp"
#include "device/driver.hpp"

namespace conveyor::data {

class DeviceMemory {
 public:
  /// `limit` bytes at most (0: the device's memory).
  DeviceMemory(device::DeviceDriver& driver, int space, std::uint64_t limit, TransferStats& stats);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  /// Called with the bytes still missing when an allocation of `bytes` does not fit; gives back
  /// what it can now (by calling release()) and returns those bytes. It may also start write-backs
  /// whose blocks it gives back later. Blocks of `bytes` are what the allocation can take as they
  /// are (any other size is freed for real, which may wait for the device).
  using Evict = std::function<std::size_t(std::size_t missing, std::size_t bytes)>;
  void set_evict(Evict evict) { evict_ = std::move(evict); }

  /// A block of `bytes`: a cached one of the same size (one that eviction gave back included),
  /// else a new one; nullptr when it does not fit now (replicas in use by tasks in flight, or
  /// write-backs still landing: try again after a completion). Throws DeviceError naming `what`
  /// when `bytes` alone exceed the limit, or when the device refuses although nothing else is
  /// allocated or nothing was freed since it last refused.
  void* allocate(std::size_t bytes, const std::string& what);
  /// A block of `bytes` from free room only (a cached block of that size, or a new one within the
  /// limit), never trimming the cache or evicting; nullptr when it does not fit now or the device
  /// refuses. For prefetches, which must not take room from the tasks that need it.
  void* try_allocate(std::size_t bytes);
  /// Returns a block to the cache (unregister, eviction). Work still queued on the lane may use
  /// it (a prefetch evicted before its copy landed): its next user's work is enqueued on the same
  /// lane after that, and the lane's order keeps the two apart (DeviceDriver, "The lane").
  void release(void* block, std::size_t bytes);
  /// Frees every cached block.
  void trim();

  std::uint64_t limit() const { return limit_; }
  std::uint64_t used() const;
  /// The most bytes allocated from the device at once (cached blocks included).
  std::uint64_t peak() const;
  void reset_peak();

 private:
  bool trim_locked();
  void add_used(std::size_t bytes);
  /// Under mutex_: a cached block of exactly `bytes` (counted as a cache hit), else nullptr.
  void* take_cached(std::size_t bytes);
  /// Under mutex_: frees cached blocks, the largest first (fewest frees: each may wait for the
  /// device), until `bytes` more fit under the limit or none is left.
  void free_cached_for(std::size_t bytes);
  /// Calls the eviction hook (without mutex_) until it has given back `missing` bytes, gives
  /// nothing, or a block of `bytes` is cached.
  void evict(std::size_t missing, std::size_t bytes, std::unique_lock<std::mutex>& lock);

  device::DeviceDriver& driver_;
  int space_;
  std::uint64_t limit_;
  TransferStats& stats_;
  Evict evict_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> cache_;
  std::uint64_t used_ = 0;    ///< bytes allocated from the device, cached ones included
  std::uint64_t cached_ = 0;  ///< bytes of the cached blocks
  std::uint64_t peak_ = 0;
  std::uint64_t frees_ = 0;                             ///< blocks given back to the device so far
  std::uint64_t frees_at_refusal_ = ~std::uint64_t{0};  ///< frees_ when the device last refused
};

}  // namespace conveyor::data
