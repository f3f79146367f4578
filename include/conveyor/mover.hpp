#pragma once
/// Movers: asynchronous copy engines that stage data from a far memory space (DRAM) into a near
/// one (staging buffers that stay in the last-level cache) while the cores compute.
///
/// A mover serves `lanes` independent lanes, one per computing thread, each with `slots` slots.
/// A lane is driven by one thread only: start_copy() on an idle slot, later wait() on the same
/// slot; copies of one lane may complete in any order. Movers that do not copy (software
/// prefetch) report stages() == false and only receive prefetch() hints.
///
///   auto mover = conveyor::make_mover("thread");
///   mover->open({.lanes = 1, .slots = 4});
///   mover->start_copy(0, 0, staging, far_array, 1 << 20);
///   ... compute on earlier blocks ...
///   mover->wait(0, 0);  // staging now holds the block; throws MoverError if the copy failed
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/error.hpp"

namespace conveyor {

/// A copy that a mover could not do; the staging slot's content is undefined.
class MoverError : public Error {
 public:
  using Error::Error;
};

struct MoverSetup {
  int lanes = 1;  ///< computing threads
  int slots = 1;  ///< outstanding copies per lane
  std::vector<int>
      spare_cpus;  ///< OS CPUs no computing thread uses (for copy threads); may be empty
};

class Mover {
 public:
  virtual ~Mover() = default;
  /// "thread", "prefetch", "dsa", ...
  virtual std::string_view name() const = 0;
  /// A line for result notes: engine, work queue, copy threads.
  virtual std::string describe() const { return std::string(name()); }
  /// Whether the mover copies into staging buffers (false: prefetch hints only).
  virtual bool stages() const { return true; }
  /// Sizes the lanes; called once before any copy, again only when no copy is outstanding.
  virtual void open(const MoverSetup& setup) = 0;
  /// Starts copying `bytes` from `src` to `dst` on (lane, slot). Returns at once.
  virtual void start_copy(int lane, int slot, void* dst, const void* src, std::size_t bytes) = 0;
  /// Blocks until the copy on (lane, slot) is complete; the slot is idle again afterwards. Throws
  /// MoverError when the copy failed.
  virtual void wait(int lane, int slot) = 0;
  /// Like wait(), but a mover that has not started the copy yet may drop it instead and return
  /// false: the caller then reads the source itself. This keeps a starved mover (a copy thread
  /// without a core of its own) from making the computation wait. The default waits.
  virtual bool wait_or_cancel(int lane, int slot) {
    wait(lane, slot);
    return true;
  }
  /// Hints that [p, p + bytes) will be read soon (software prefetch); most movers ignore it.
  virtual void prefetch(const void* p, std::size_t bytes) {
    (void)p;
    (void)bytes;
  }
};

/// Options of the built-in movers.
struct MoverOptions {
  int copy_threads = 1;  ///< thread: dedicated copy threads, lanes shared round-robin
  /// thread: fail the Nth copy (1-based) with a MoverError, to test failure paths; 0 = never.
  long fail_copy = 0;
  std::string dsa_wq;  ///< dsa: work queue device name ("wq0.0"); empty = the first usable one
};

/// The host movers: "thread", "prefetch", "dsa". Throws UsageError for an unknown name (naming the
/// valid ones) and for "dsa" when this machine has no usable DSA work queue.
std::unique_ptr<Mover> make_mover(std::string_view name, const MoverOptions& options = {});
/// Names make_mover() accepts, whether or not the hardware is present.
std::vector<std::string> host_mover_names();

}  // namespace conveyor
