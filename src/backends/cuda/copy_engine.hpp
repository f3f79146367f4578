#pragma once
// An asynchronous copy engine (a Mover, conveyor/mover.hpp): one non-blocking stream that copies
// between any two addresses the device can reach (device memory, pinned or mapped host memory,
// another device under UVA). A GPU has `copy_engines` DMA engines (asyncEngineCount); one
// CopyEngine per direction lets H2D and D2H run at once. Pageable host memory works but is staged
// by the driver, and the copy call then returns only when the host side is done.
//
//   CopyEngine h2d(0);
//   auto ticket = h2d.copy(device_ptr, pinned_ptr, bytes);  // returns at once
//   ... compute meanwhile ...
//   h2d.wait(ticket);
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory.hpp"

namespace conveyor::backend::cuda {

class CopyEngine {
 public:
  using Ticket = std::uint64_t;

  /// An engine on device `ordinal` that tracks the last `slots` copies one by one (older ones count
  /// as done once a tracked later one is: the stream runs them in order). With `timing`, seconds()
  /// reports each copy's device time, at a small extra cost per copy.
  explicit CopyEngine(int ordinal, int slots = 64, bool timing = false);

  /// Enqueues a copy of `bytes` from `src` to `dst` after every earlier copy of this engine.
  Ticket copy(void* dst, const void* src, std::size_t bytes);
  /// Whether the copy `ticket` (and every earlier one) has finished; never blocks.
  bool done(Ticket ticket) const;
  /// Blocks until the copy `ticket` (and every earlier one) has finished.
  void wait(Ticket ticket) const;
  /// Blocks until every copy enqueued so far has finished.
  void wait_all() const;
  /// Device time of one finished copy, in seconds (waits for it). Needs `timing` and one of the
  /// last `slots` tickets; throws Error otherwise.
  double seconds(Ticket ticket) const;

  /// The engine's stream, for work that must be ordered with its copies.
  cudaStream_t stream() const { return stream_.get(); }
  int ordinal() const { return ordinal_; }

 private:
  struct Slot {
    Event start;  // recorded only when timing
    Event stop;
    Ticket ticket = 0;
  };
  // The slot of `ticket`, or of the oldest tracked copy when `ticket` has been overwritten.
  const Slot& slot_for(Ticket ticket) const;

  int ordinal_;
  bool timing_;
  Stream stream_;
  std::vector<Slot> slots_;
  Ticket next_ = 0;
};

}  // namespace conveyor::backend::cuda
