#pragma once
// A submitted task and the pool it comes from. Task objects are recycled (their vectors and name
// keep their capacity), so a steady stream of submissions allocates nothing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"
#include "data/data_state.hpp"
#include "device/codelet_impl.hpp"

namespace conveyor::runtime {

struct TaskAccess {
  data::DataState* data = nullptr;
  Access mode = Access::Read;
};

inline constexpr std::size_t kMaxArgsBytes = 64;

struct Task {
  enum class Kind : std::uint8_t { Compute, Acquire };

  TaskId id = 0;
  Kind kind = Kind::Compute;
  std::shared_ptr<device::CodeletImpl> codelet;  ///< null for acquires
  std::string name;
  int priority = 0;
  std::vector<TaskAccess> accesses;
  std::array<std::byte, kMaxArgsBytes> args{};
  std::size_t args_bytes = 0;

  // Graph state, guarded by the runtime's lock.
  int pending = 0;  ///< unfinished predecessors
  std::vector<Task*> successors;
  bool cancelled = false;  ///< a predecessor failed: complete without running
  bool granted = false;    ///< acquires: ready, host access given

  // Scheduling.
  std::uint64_t seq = 0;     ///< ready order, for FIFO among equal priorities
  int worker = -1;           ///< the worker it ran on
  double exec_seconds = -1;  ///< measured execution time (Scheduler::on_complete), < 0 if none
  /// Cost-aware policies: the execution time predicted where it was placed (< 0: none), and
  /// whether it was placed there to measure that worker's model (calibration).
  double predicted_seconds = -1;
  /// ... and the copies in predicted there, where they occupy the worker (a simulated lane).
  double predicted_copy_seconds = 0;
  bool calibration = false;
  /// Queued for a device: its driver has looked at it for prefetching (RuntimeOptions::prefetch).
  bool prefetch_seen = false;

  // Run-ahead (RuntimeOptions::run_ahead), under the runtime's lock. A task whose unfinished
  // predecessors are all enqueued on one device's lane may be enqueued behind them there, ordered
  // by the lane, before the host has seen them finish.
  enum class Ahead : std::uint8_t {
    None,      ///< becomes ready as usual, when `pending` reaches 0
    Queued,    ///< in its device worker's own queue with `pending` > 0 maybe; that worker ends it
    Launched,  ///< enqueued on the lane with `pending` > 0 at the time; its completion ends it
    Dropped,   ///< taken cancelled, or its launch failed, before `pending` reached 0: completed
               ///< (as cancelled) once it does
  };
  Ahead ahead = Ahead::None;
  int ahead_worker = -1;  ///< the device worker whose run-ahead depth it counts in, or -1
  int lane_of = -1;       ///< enqueued on this device worker's lane and not completed, or -1
  /// Unfinished predecessors enqueued on a lane, and that lane's worker when they share one
  /// (kMixedLanes when not; -1 when there are none).
  int on_lane = 0;
  int lane = -1;
  static constexpr int kMixedLanes = -2;

  /// Name for messages and the trace: the given name, else the codelet's.
  const std::string& label() const;
  /// Clears a recycled task but keeps its capacity.
  void reset();
};

/// Free list of tasks (guarded by the runtime's lock).
class TaskPool {
 public:
  Task* get();
  void put(Task* task);
  ~TaskPool();

 private:
  std::vector<Task*> free_;
  std::vector<std::unique_ptr<Task>> all_;
};

}  // namespace conveyor::runtime
