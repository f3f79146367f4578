#pragma once
// Which task ids have finished, for Runtime::wait(TaskId), guarded by the runtime's lock. Ids come
// from one counter (tasks and acquires alike), one more each time: every id below `first_open_`
// has finished, and a ring of flags covers the ids from there to the newest. The ring grows by
// doubling and never shrinks, so a steady stream of tasks allocates nothing; it holds one byte per
// id issued since the oldest task still unfinished.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "conveyor/codelet.hpp"

namespace conveyor::runtime {

class CompletionLog {
 public:
  /// `id` was just issued (the previous id + 1).
  void issued(TaskId id) {
    (void)id;  // implied by the count: the ids are consecutive
    if (count_ == ring_.size()) grow();
    ring_[slot(count_)] = 0;
    ++count_;
  }
  /// Task `id` has finished (completed, failed or cancelled; an acquire released).
  void finished(TaskId id) {
    ring_[slot(static_cast<std::size_t>(id - first_open_))] = 1;
    while (count_ > 0 && ring_[head_] != 0) {
      head_ = (head_ + 1) & (ring_.size() - 1);
      ++first_open_;
      --count_;
    }
  }
  /// Whether `id` (one issued) has finished.
  bool done(TaskId id) const {
    return id < first_open_ || ring_[slot(static_cast<std::size_t>(id - first_open_))] != 0;
  }

 private:
  std::size_t slot(std::size_t offset) const { return (head_ + offset) & (ring_.size() - 1); }
  void grow() {
    std::vector<std::uint8_t> bigger(ring_.size() * 2);
    for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[slot(i)];
    ring_.swap(bigger);
    head_ = 0;
  }

  std::vector<std::uint8_t> ring_ = std::vector<std::uint8_t>(1024);  ///< a power of two
  std::size_t head_ = 0;                                              ///< the slot of first_open_
  std::size_t count_ = 0;  ///< ids issued from first_open_ on
  TaskId first_open_ = 1;  ///< the oldest id not known finished (ids start at 1)
};

}  // namespace conveyor::runtime
