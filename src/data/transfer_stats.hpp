#pragma once
// Copy counters per link (ordered pair of memory spaces) and allocation counters per space:
// relaxed atomics, bumped by whichever thread issues the copy, read by Runtime::stats.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"

namespace conveyor::data {

class TransferStats {
 public:
  /// `spaces` names the memory spaces, the host first.
  explicit TransferStats(std::vector<std::string> spaces);

  void count_copy(int from, int to, std::uint64_t bytes) {
    Counter& c = links_[from * n_ + to];
    c.copies.fetch_add(1, std::memory_order_relaxed);
    c.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  void count_allocation(int space) { allocations_[space].fetch_add(1, std::memory_order_relaxed); }
  void count_cache_hit(int space) { cache_hits_[space].fetch_add(1, std::memory_order_relaxed); }
  void count_eviction(int space) { evictions_[space].fetch_add(1, std::memory_order_relaxed); }
  /// A write-back is also a copy from `space` to the host (count_copy too).
  void count_write_back(int space, std::uint64_t bytes) {
    write_backs_[space].fetch_add(1, std::memory_order_relaxed);
    write_back_bytes_[space].fetch_add(bytes, std::memory_order_relaxed);
  }

  /// A prefetch copied `bytes` into `space` (also a copy: count_copy too); its replica was then
  /// used by the task it was made for, or dropped (evicted or invalidated) before.
  void count_prefetch(int space, std::uint64_t bytes) {
    prefetches_[space].fetch_add(1, std::memory_order_relaxed);
    prefetch_bytes_[space].fetch_add(bytes, std::memory_order_relaxed);
  }
  void count_prefetch_used(int space) {
    prefetches_used_[space].fetch_add(1, std::memory_order_relaxed);
  }
  void count_prefetch_dropped(int space) {
    prefetches_dropped_[space].fetch_add(1, std::memory_order_relaxed);
  }

  /// Fills the copy and allocation fields of `out`.
  void fill(RuntimeStats& out) const;
  void reset();

 private:
  struct Counter {
    std::atomic<std::uint64_t> copies{0};
    std::atomic<std::uint64_t> bytes{0};
  };
  std::vector<std::string> spaces_;
  int n_;
  std::unique_ptr<Counter[]> links_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> allocations_;  // per space
  std::unique_ptr<std::atomic<std::uint64_t>[]> cache_hits_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> evictions_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> write_backs_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> write_back_bytes_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> prefetches_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> prefetch_bytes_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> prefetches_used_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> prefetches_dropped_;
};

}  // namespace conveyor::data
