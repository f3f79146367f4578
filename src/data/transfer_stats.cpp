#include "data/transfer_stats.hpp"

namespace conveyor::data {

TransferStats::TransferStats(std::vector<std::string> spaces)
    : spaces_(std::move(spaces)),
      n_(static_cast<int>(spaces_.size())),
      links_(std::make_unique<Counter[]>(spaces_.size() * spaces_.size())),
      allocations_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      cache_hits_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      evictions_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      write_backs_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      write_back_bytes_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      prefetches_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      prefetch_bytes_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      prefetches_used_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())),
      prefetches_dropped_(std::make_unique<std::atomic<std::uint64_t>[]>(spaces_.size())) {
  reset();
}

void TransferStats::fill(RuntimeStats& out) const {
  for (int from = 0; from < n_; ++from)
    for (int to = 0; to < n_; ++to) {
      const Counter& c = links_[from * n_ + to];
      std::uint64_t copies = c.copies.load(std::memory_order_relaxed);
      std::uint64_t bytes = c.bytes.load(std::memory_order_relaxed);
      if (copies == 0) continue;
      out.links.push_back({spaces_[from], spaces_[to], copies, bytes});
      if (from == 0) {
        out.h2d_copies += copies;
        out.h2d_bytes += bytes;
      } else if (to == 0) {
        out.d2h_copies += copies;
        out.d2h_bytes += bytes;
      } else {
        out.d2d_copies += copies;
        out.d2d_bytes += bytes;
      }
    }
  for (int s = 1; s < n_; ++s) {
    SpaceStats space;
    space.name = spaces_[s];
    space.allocations = allocations_[s].load(std::memory_order_relaxed);
    space.cache_hits = cache_hits_[s].load(std::memory_order_relaxed);
    space.evictions = evictions_[s].load(std::memory_order_relaxed);
    space.write_backs = write_backs_[s].load(std::memory_order_relaxed);
    space.write_back_bytes = write_back_bytes_[s].load(std::memory_order_relaxed);
    space.prefetches = prefetches_[s].load(std::memory_order_relaxed);
    space.prefetch_bytes = prefetch_bytes_[s].load(std::memory_order_relaxed);
    space.prefetches_used = prefetches_used_[s].load(std::memory_order_relaxed);
    space.prefetches_dropped = prefetches_dropped_[s].load(std::memory_order_relaxed);
    out.prefetches += space.prefetches;
    out.prefetch_bytes += space.prefetch_bytes;
    out.prefetches_used += space.prefetches_used;
    out.prefetches_dropped += space.prefetches_dropped;
    out.device_allocations += space.allocations;
    out.allocation_cache_hits += space.cache_hits;
    out.evictions += space.evictions;
    out.write_backs += space.write_backs;
    out.write_back_bytes += space.write_back_bytes;
    out.spaces.push_back(std::move(space));
  }
}

void TransferStats::reset() {
  for (int i = 0; i < n_ * n_; ++i) {
    links_[i].copies.store(0);
    links_[i].bytes.store(0);
  }
  for (int s = 0; s < n_; ++s) {
    allocations_[s].store(0);
    cache_hits_[s].store(0);
    evictions_[s].store(0);
    write_backs_[s].store(0);
    write_back_bytes_[s].store(0);
    prefetches_[s].store(0);
    prefetch_bytes_[s].store(0);
    prefetches_used_[s].store(0);
    prefetches_dropped_[s].store(0);
  }
}

}  // namespace conveyor::data
