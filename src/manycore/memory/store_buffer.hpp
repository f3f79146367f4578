#pragma once
// The proposal's store buffer: a FIFO of stores between the core and the local memory. Entries are
// data stores (to local memory) or DMA-request stores (to the DMA controller's registers). Loads
// forward from it byte by byte, so the core always sees its own stores in program order.
#include <cstdint>
#include <cstring>
#include <vector>

namespace conveyor::manycore {

struct SbEntry {
  uint32_t addr = 0;  ///< local address, or DMA register offset for a request store
  uint32_t value = 0;
  uint32_t pc = 0;   ///< of the store, for error messages
  uint64_t seq = 0;  ///< program order across both queues (split mode)
  uint8_t size = 0;  ///< 1, 2, 4
  bool request = false;
};

/// A fixed-capacity ring: no allocation after construction.
class SbQueue {
 public:
  void reset(int capacity) {
    slots_.assign(static_cast<size_t>(capacity > 0 ? capacity : 1), SbEntry{});
    capacity_ = capacity;
    head_ = count_ = 0;
  }
  bool full() const { return count_ >= capacity_; }
  bool empty() const { return count_ == 0; }
  int size() const { return count_; }
  void push(const SbEntry& e) {
    slots_[(head_ + count_) % capacity_] = e;
    ++count_;
  }
  const SbEntry& front() const { return slots_[head_]; }
  void pop() {
    head_ = (head_ + 1) % capacity_;
    --count_;
  }
  const SbEntry& at(int i) const { return slots_[(head_ + i) % capacity_]; }

  /// Applies the buffered data stores overlapping [addr, addr+size) over `bytes` (which holds the
  /// memory's value), oldest first, so the youngest store wins.
  void forward(uint32_t addr, uint32_t size, uint8_t* bytes) const {
    for (int i = 0; i < count_; ++i) {
      const SbEntry& e = at(i);
      if (e.request || e.addr >= addr + size || e.addr + e.size <= addr) continue;
      for (uint32_t b = 0; b < e.size; ++b) {
        uint32_t a = e.addr + b;
        if (a >= addr && a < addr + size)
          bytes[a - addr] = static_cast<uint8_t>(e.value >> (8 * b));
      }
    }
  }

 private:
  int count_ = 0;  // first: empty() is checked by every load
  int capacity_ = 0;
  int head_ = 0;
  std::vector<SbEntry> slots_;
};

inline bool overlaps(uint32_t a, uint32_t a_size, uint32_t lo, uint32_t hi) {
  return a < hi && a + a_size > lo;
}

}  // namespace conveyor::manycore
