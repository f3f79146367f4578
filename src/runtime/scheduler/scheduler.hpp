#pragma once
// A scheduler places each ready task: in the queue of one worker, or in a pool that every worker of
// some kinds takes from. Policies (one file each) decide the placement, and may follow each task
// through the hooks on_start / on_complete (with its measured time) to keep their own bookkeeping;
// the queues, the priority order and the choice of whom to wake are shared here. All calls happen
// under the runtime's lock.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/device.hpp"
#include "data/coherence.hpp"
#include "runtime/task.hpp"

namespace conveyor::runtime::perfmodel {
class PerfModels;
}

namespace conveyor::runtime::scheduler {

struct WorkerDesc {
  DeviceKind kind = DeviceKind::Cpu;
  int space = 0;  ///< memory space the worker computes from (0 = host)
  std::string name;
  std::string device = "cpu";  ///< what the models are keyed by: "cpu", "opencl:0", "cuda:1"
  /// A device that computes on the host's own cores (an OpenCL CPU device such as PoCL): its work
  /// competes with the CPU workers'.
  bool shares_host_cores = false;
};

/// A set of device kinds, one bit per DeviceKind.
using KindMask = unsigned;
inline constexpr KindMask bit(DeviceKind k) { return 1u << static_cast<unsigned>(k); }
inline constexpr KindMask kCpuMask = 1u << static_cast<unsigned>(DeviceKind::Cpu);
inline constexpr int kMasks = 8;

/// Which worker(s) a placement concerns: one worker, or any idle worker whose kind is in `mask`.
struct Placement {
  int worker = -1;
  KindMask mask = 0;
};

struct SchedulerContext {
  std::vector<WorkerDesc> workers;
  std::set<std::string, std::less<>> offload;  ///< codelet names placed on devices
  /// Where data is: policies ask it (e.g. bytes_missing), never DataState directly.
  data::CoherenceEngine* coherence = nullptr;
  /// Cost-aware policies: the performance models (the runtime keeps them, with a link model per
  /// device), and whether to measure every (codelet, device) before trusting it (calibration).
  perfmodel::PerfModels* models = nullptr;
  bool calibrate = false;
  /// The runtime's clock in seconds (virtual time on a simulated platform); null: steady_clock.
  std::function<double()> now;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerContext context);
  virtual ~Scheduler() = default;

  /// Throws UsageError when tasks of `codelet` could never run under this policy.
  virtual void check(const device::CodeletImpl& codelet) const;
  /// Places a ready task; returns where, so that the runtime wakes a worker that can take it.
  Placement push(Task* task);
  /// The policy's placement of a task, without queueing it (run-ahead asks it for a task whose
  /// predecessors are still on a device's lane); enqueue then puts it there, or withdraw undoes
  /// what the decision counted (the task is pushed, and placed anew, once it is ready).
  Placement decide(Task& task);
  virtual void withdraw(Task& /*task*/, Placement /*p*/) {}
  /// Cost-aware policies: predicted seconds of the work `worker` has started and not finished
  /// (on a device: what its lane still holds), or < 0 when the policy does not know.
  virtual double started_seconds(int /*worker*/) const { return -1; }
  Placement enqueue(Task* task, Placement p);
  /// The highest-priority task this worker may take, or nullptr (then on_start follows).
  Task* pop(int worker);
  /// A task that ran has finished (or failed) on task.worker; task.exec_seconds is its measured
  /// execution time (CPU: the function; devices: the kernel on the stream/queue), or < 0 when it
  /// was not measured. Not called for cancelled tasks.
  virtual void on_complete(const Task& /*task*/) {}
  /// A task placed here that will never run, cancelled after a failure upstream: taken from its
  /// queue by `worker` (pop ran, on_complete will not). Policies undo what its placement counted.
  virtual void on_cancel(const Task& /*task*/, int /*worker*/) {}
  /// Cost-aware policies: the execution time predicted for the tasks that finished on `worker`,
  /// and how many tasks were placed only to measure a model (calibration).
  virtual double predicted_busy(int /*worker*/) const { return 0; }
  virtual std::uint64_t calibration_tasks() const { return 0; }
  /// Runtime::reset_stats: starts those counts over.
  virtual void reset_stats() {}
  /// Ready tasks waiting in total.
  std::size_t ready() const { return ready_; }
  /// The tasks waiting in one worker's own queue, as a heap: the first entries hold the highest
  /// priorities. Only that worker takes from it (the runtime's prefetch looks ahead here).
  std::span<Task* const> own_queue(int worker) const { return per_worker_[worker].heap; }
  /// The first `count` tasks of one worker's own queue in the order it gives them out (priority,
  /// then readiness), into `out`: a walk of the heap from its top, O(count log count) whatever
  /// the queue's length (the runtime ranks the next uses of device data at every launch).
  void next_in_queue(int worker, std::size_t count, std::vector<Task*>& out);
  const SchedulerContext& context() const { return context_; }

 protected:
  /// The policy: where this ready task goes.
  virtual Placement place(Task& task) = 0;
  /// `worker` took the task (from its queue or a pool) and is about to run it.
  virtual void on_start(const Task& /*task*/, int /*worker*/) {}
  /// When true, a worker takes from its own queue the task with the fewest bytes still to copy
  /// into its space (among the first few in priority order) rather than the first.
  virtual bool prefers_local_data() const { return false; }
  /// When true, the tasks of the codelets named in RuntimeOptions::offload may run on devices only
  /// ("offload", "locality", "model"): check() then refuses such a codelet that no device present
  /// can run, whose tasks would otherwise wait for ever.
  virtual bool keeps_offloaded_on_devices() const { return false; }

  /// Kinds of the workers present that the codelet has implementations for.
  KindMask runnable(const device::CodeletImpl& codelet) const;
  KindMask present() const { return present_; }
  KindMask device_kinds() const { return present_ & ~kCpuMask; }
  bool offloaded(const device::CodeletImpl& codelet) const;
  /// Bytes of the task's data valid in `space` already, and bytes it would have to copy there.
  std::size_t bytes_valid(const Task& task, int space) const;
  std::size_t bytes_missing(const Task& task, int space) const;
  /// Tasks queued for one worker (its own queue).
  std::size_t queued(int worker) const { return per_worker_[worker].size(); }

 private:
  struct Later {
    bool operator()(const Task* a, const Task* b) const {
      return a->priority != b->priority ? a->priority < b->priority : a->seq > b->seq;
    }
  };
  using Queue = std::priority_queue<Task*, std::vector<Task*>, Later>;
  // A worker's own queue: a heap in a vector, so that it can be looked into (prefers_local_data).
  struct OwnQueue {
    std::vector<Task*> heap;
    bool empty() const { return heap.empty(); }
    std::size_t size() const { return heap.size(); }
    Task* top() const { return heap.front(); }
    void push(Task* t);
    Task* take(std::size_t i);
  };
  Task* pick_local(int worker);
  /// Keeps DataState's count of queued readers per device space (eviction spares those): +1 when
  /// a task enters a device worker's own queue, -1 when it leaves.
  void note_queued(const Task& task, int worker, int delta) const;
  void check_modelled(const device::CodeletImpl& codelet) const;

  SchedulerContext context_;
  KindMask present_ = 0;
  std::vector<OwnQueue> per_worker_;
  std::vector<std::size_t> frontier_;  // next_in_queue's heap of candidate entries
  Queue pools_[kMasks];
  /// Per pool mask: the one worker able to take from it when that is a device (one device of the
  /// kinds asked for), else -1. Such tasks go to its own queue instead, where the device's driver
  /// sees them (prefetch) and eviction counts their readers; the order it takes them in is the
  /// same, since nobody else would take them.
  int sole_device_[kMasks];
  std::uint64_t seq_ = 0;
  std::size_t ready_ = 0;
  // Codelets a simulated platform models on every worker that may run them (check_modelled);
  // submits may come from several threads.
  mutable std::mutex modelled_mutex_;
  mutable std::set<std::string, std::less<>> modelled_;
};

/// "eager", "round-robin", "offload", "locality", "model", "model-ready"; throws UsageError for
/// another name.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name, SchedulerContext context);
/// Whether the policy `name` needs device task times measured (DriverConfig::time_tasks); CPU
/// task times are always measured.
bool measures_device_tasks(std::string_view name);

}  // namespace conveyor::runtime::scheduler
