#include "data/device_memory.hpp"

#include <fmt/format.h>

#include <iterator>

#include "conveyor/error.hpp"
#include "conveyor/units.hpp"

namespace conveyor::data {
namespace {
constexpr std::size_t kNoSize = ~std::size_t{0};  // evict(): no size stops it early
}  // namespace

DeviceMemory::DeviceMemory(device::DeviceDriver& driver, int space, std::uint64_t limit,
                           TransferStats& stats)
    : driver_(driver),
      space_(space),
      limit_(limit ? limit : driver.memory_bytes()),
      stats_(stats) {}

DeviceMemory::~DeviceMemory() { trim(); }

std::uint64_t DeviceMemory::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

std::uint64_t DeviceMemory::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void DeviceMemory::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_ = used_;
}

void DeviceMemory::add_used(std::size_t bytes) {
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
}

bool DeviceMemory::trim_locked() {
  bool any = !cache_.empty();
  for (auto& [bytes, block] : cache_) {
    driver_.deallocate(block);
    used_ -= bytes;
    ++frees_;
  }
  cache_.clear();
  cached_ = 0;
  return any;
}

void DeviceMemory::trim() {
  std::lock_guard lock(mutex_);
  trim_locked();
}

void* DeviceMemory::take_cached(std::size_t bytes) {
  auto it = cache_.find(bytes);
  if (it == cache_.end()) return nullptr;
  void* block = it->second;
  cache_.erase(it);
  cached_ -= bytes;
  stats_.count_cache_hit(space_);
  return block;
}

void DeviceMemory::free_cached_for(std::size_t bytes) {
  while (used_ + bytes > limit_ && !cache_.empty()) {
    auto it = std::prev(cache_.end());
    driver_.deallocate(it->second);
    used_ -= it->first;
    cached_ -= it->first;
    ++frees_;
    cache_.erase(it);
  }
}

void DeviceMemory::evict(std::size_t missing, std::size_t bytes,
                         std::unique_lock<std::mutex>& lock) {
  while (missing > 0 && evict_ && !cache_.count(bytes)) {
    lock.unlock();  // eviction calls release(), which locks
    std::size_t freed = evict_(missing, bytes);
    lock.lock();
    if (freed == 0) return;
    missing = freed >= missing ? 0 : missing - freed;
  }
}

void* DeviceMemory::allocate(std::size_t bytes, const std::string& what) {
  std::unique_lock lock(mutex_);
  if (void* block = take_cached(bytes)) return block;
  if (bytes > limit_)
    throw DeviceError(fmt::format("{}: cannot allocate {} for {}: larger than the device limit {}",
                                  driver_.id(), format_bytes(bytes), what, format_bytes(limit_)));
  if (used_ + bytes > limit_) {
    // Room is the limit's free part plus the cached blocks; evicted replicas' blocks join the
    // cache, and one of this size is taken as it is: no free (cudaFree waits for the device) and
    // no new allocation. Cached blocks of other sizes are freed only as far as needed.
    const std::uint64_t room = limit_ - used_ + cached_;
    if (room < bytes) evict(bytes - room, bytes, lock);
    if (void* block = take_cached(bytes)) return block;
    free_cached_for(bytes);
    if (used_ + bytes > limit_) return nullptr;  // in use now: the caller waits for completions
  }
  void* block = nullptr;
  try {
    block = driver_.allocate(bytes);
  } catch (const DeviceError&) {
    // The device's own allocator refused below the limit (real memory smaller, fragmented or
    // shared with other processes): free what can be freed, for real, and try once more.
    trim_locked();
    evict(bytes, kNoSize, lock);
    trim_locked();
    try {
      block = driver_.allocate(bytes);
    } catch (const DeviceError&) {
      // A real failure when there is nothing of ours to wait for, or when nothing came free since
      // the last refusal (the device does not give memory back as ours goes: waiting would never
      // end). Otherwise the caller waits for a completion and asks again.
      if (used_ == 0 || frees_ == frees_at_refusal_) throw;
      frees_at_refusal_ = frees_;
      return nullptr;
    }
  }
  add_used(bytes);
  stats_.count_allocation(space_);
  return block;
}

void* DeviceMemory::try_allocate(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (void* block = take_cached(bytes)) return block;
  if (used_ + bytes > limit_) return nullptr;
  void* block = nullptr;
  try {
    block = driver_.allocate(bytes);
  } catch (const DeviceError&) {
    return nullptr;  // the device's own allocator refused: a prefetch simply does not happen
  }
  add_used(bytes);
  stats_.count_allocation(space_);
  return block;
}

void DeviceMemory::release(void* block, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  cache_.emplace(bytes, block);
  cached_ += bytes;
}

}  // namespace conveyor::data
