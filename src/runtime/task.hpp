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
