#include "data/device_memory.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/units.hpp"

namespace conveyor::data {

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
  return any;
}

void DeviceMemory::trim() {
  std::lock_guard lock(mutex_);
  trim_locked();
}

void* DeviceMemory::allocate(std::size_t bytes, const std::string& what) {
  std::unique_lock lock(mutex_);
  if (auto it = cache_.find(bytes); it != cache_.end()) {
    void* block = it->second;
    cache_.erase(it);
    stats_.count_cache_hit(space_);
    return block;
  }
  if (bytes > limit_)
    throw DeviceError(fmt::format("{}: cannot allocate {} for {}: larger than the device limit {}",
                                  driver_.id(), format_bytes(bytes), what, format_bytes(limit_)));
  // Evicts until it fits; `missing` is what the limit (or, after a refusal, the device) lacks.
  auto make_room = [&](std::size_t missing) {
    trim_locked();
    while (missing > 0) {
      lock.unlock();  // eviction calls free(), which locks
      std::size_t freed = evict_ ? evict_(missing) : 0;
      lock.lock();
      if (freed == 0) return;
      missing = freed >= missing ? 0 : missing - freed;
    }
  };
  if (used_ + bytes > limit_) make_room(used_ + bytes - limit_);
  if (used_ + bytes > limit_) return nullptr;  // in use now: the caller waits for completions
  void* block = nullptr;
  try {
    block = driver_.allocate(bytes);
  } catch (const DeviceError&) {
    // The device's own allocator refused below the limit (real memory smaller, fragmented or
    // shared with other processes): free what can be freed and try once more.
    make_room(bytes);
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
  if (auto it = cache_.find(bytes); it != cache_.end()) {
    void* block = it->second;
    cache_.erase(it);
    stats_.count_cache_hit(space_);
    return block;
  }
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
}

void DeviceMemory::free(void* block, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  driver_.deallocate(block);
  used_ -= bytes;
  ++frees_;
}

}  // namespace conveyor::data
