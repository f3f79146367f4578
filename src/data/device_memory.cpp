#include "data/device_memory.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/units.hpp"

namespace conveyor::detail {

DeviceMemory::DeviceMemory(runtime::DeviceDriver& driver, int space, std::uint64_t limit,
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

bool DeviceMemory::trim_locked() {
  bool any = !cache_.empty();
  for (auto& [bytes, block] : cache_) {
    driver_.deallocate(block);
    used_ -= bytes;
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
  if (used_ + bytes > limit_) trim_locked();
  while (used_ + bytes > limit_) {
    std::size_t missing = used_ + bytes - limit_;
    lock.unlock();  // eviction calls free(), which locks
    bool freed = evict_ && evict_(missing);
    lock.lock();
    if (!freed) break;
  }
  if (used_ + bytes > limit_)
    throw DeviceError(fmt::format(
        "{}: cannot allocate {} for {}: {} of the {} limit in use by replicas of tasks in flight "
        "or modified data",
        driver_.id(), format_bytes(bytes), what, format_bytes(used_), format_bytes(limit_)));
  void* block = nullptr;
  try {
    block = driver_.allocate(bytes);
  } catch (const DeviceError&) {
    if (!trim_locked()) throw;
    block = driver_.allocate(bytes);
  }
  used_ += bytes;
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
}

}  // namespace conveyor::detail
