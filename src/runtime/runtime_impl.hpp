#pragma once
// The runtime's insides: workers (pinned CPU threads and one driver thread per device), the task
// graph with dependencies inferred from submission order, the scheduler, coherence, statistics and
// the trace. One lock (mutex_) guards the graph and the ready queues; each Data has its own lock
// for its replicas.
// Defined along a task's flow (docs/architecture.md, "How a task flows"): runtime_options.cpp
// (what "auto" and "all" become), runtime_setup.cpp (constructor, destructor), data_table.cpp
// (register to unregister, partition), task_graph.cpp (submit to complete, wait_all, acquire),
// cpu_worker.cpp, device_worker.cpp, runtime_waits.cpp (time, virtual-clock waits; wait_user in
// runtime_impl_shared.hpp), runtime_stats.cpp (stats, trace).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "conveyor/runtime.hpp"
#include "data/coherence.hpp"
#include "data/data_state.hpp"
#include "data/transfer_stats.hpp"
#include "device/codelet_impl.hpp"
#include "device/driver.hpp"
#include "device/trace.hpp"
#include "device/virtual_clock.hpp"
#include "runtime/completion_log.hpp"
#include "runtime/perfmodel/store.hpp"
#include "runtime/scheduler/scheduler.hpp"
#include "runtime/task.hpp"

namespace conveyor {

class Runtime::Impl final : public detail::CompletionSink {
 public:
  /// `extra_drivers` are devices given directly (tests: emulated devices), after options.devices.
  Impl(RuntimeOptions options, std::vector<std::unique_ptr<device::DeviceDriver>> extra_drivers);
  ~Impl();

  bool pin_host(void* ptr, std::size_t bytes);
  void unpin_host(void* ptr);
  Data register_data(void* ptr, std::size_t elem_size, std::size_t rows, std::size_t cols,
                     std::size_t ld, std::string name, data::DataState* parent = nullptr);
  /// Memory on `device` (its id) as the home of a new data (Runtime::register_device_bytes).
  Data register_device_data(std::string_view device, void* ptr, std::size_t elem_size,
                            std::size_t rows, std::size_t cols, std::size_t ld, std::string name);
  Data add_to_registry(std::shared_ptr<data::DataState> state);
  TileGrid partition(const Data& matrix, std::size_t tile_rows, std::size_t tile_cols);
  void unpartition(TileGrid& grid);
  void unregister(Data& data);
  TaskId submit(const Codelet& codelet, std::span<const DataAccess> accesses, int priority,
                std::string_view name, std::span<const std::byte> args);
  void wait_all();
  /// Waits until task `id` has finished or `deadline` passes; false on the deadline. Throws Error
  /// with the task's failure, UsageError for an id not issued (Runtime::wait).
  bool wait(TaskId id, std::chrono::steady_clock::time_point deadline);
  bool finished(TaskId id) const;
  /// Waits until `mode` on the data is granted and the host holds the latest contents (with
  /// `to_host`; without, only the grant: unregister of data whose home is a device brings it
  /// there instead); the task returned stands for the access until release().
  runtime::Task* acquire(const Data& data, Access mode, bool to_host = true);
  void release(runtime::Task* ticket);

  RuntimeStats stats() const;
  void reset_stats();
  /// Seconds since the runtime started: virtual on a simulated platform.
  double now_s() const;
  std::vector<std::string> workers() const;
  const RuntimeOptions& options() const { return options_; }
  void write_trace(const std::string& path) const;

 private:
  struct Worker;
  struct Slot {  // one task in flight on a device
    Impl* impl = nullptr;
    Worker* worker = nullptr;
    runtime::Task* task = nullptr;
    std::string error;
    bool landed = false;     // its completion came (mutex_); handled in lane order
    bool cancelled = false;  // it ran ahead of a predecessor that failed: its results are void
    std::vector<std::pair<data::DataState*, int>> peer_pins;  // sources of peer copies
    std::vector<int> reservations;  // per access, as CoherenceEngine::reserve_on_device said
  };
  struct Worker {
    int index = 0;
    runtime::scheduler::WorkerDesc desc;
    device::DeviceDriver* driver = nullptr;  // null for CPU workers
    int cpu = -1;                            // OS CPU it is pinned to
    std::thread thread;
    std::condition_variable cv;
    bool idle = false;    // waiting for a task it could take (wake() looks for these)
    bool asleep = false;  // waiting on cv at all (virtual-time accounting: rouse / doze)
    TaskContext context;
    std::uint64_t tasks = 0;
    double busy_seconds = 0;
    // Devices only (guarded by mutex_ except the slots' contents).
    int in_flight = 0;
    /// Tasks in flight in the order enqueued; completions are handled from the front, so a task
    /// that ran ahead of its predecessors completes after them even when the driver reports its
    /// completion first.
    std::deque<Slot*> lane;
    int ahead = 0;  ///< run-ahead tasks queued or enqueued here, not completed (Task::ahead_worker)
    std::vector<std::unique_ptr<Slot>> slots;
    std::vector<Slot*> free_slots;
    double busy_since = 0;  // now_s() when in_flight became 1
    std::vector<device::TimedOp> timed;
    // Memory-aware dispatch (driver thread, except memory_events: mutex_). The task whose
    // buffers did not fit waits here, keeping the replicas it has already made resident (pinned),
    // until completions or write-backs make room; no other task starts meanwhile, so the two
    // cannot keep evicting each other's buffers.
    runtime::Task* waiting = nullptr;
    std::size_t prepared = 0;  ///< accesses of `waiting` (or the task being launched) reserved
    std::vector<std::pair<data::DataState*, int>> peer_pins;
    std::vector<int> reservations;
    std::uint64_t memory_events = 0;  ///< write-backs landed, peer pins released (mutex_)
    std::vector<data::DataState*> prefetch_list;  ///< reused by prefetch_queued
    std::vector<data::DataState*> early_list;     ///< reused by begin_early_write_backs
    std::vector<runtime::Task*> next_tasks;       ///< reused by rank_next_uses
    std::vector<data::DataState*> next_reads;     ///< reused by rank_next_uses
  };

  // The constructor's steps, in order. open_drivers returns the simulated platform's host cores
  // (-1 on real hardware).
  int open_drivers(std::vector<std::unique_ptr<device::DeviceDriver>> extra);
  std::vector<device::DeviceDriver*> raw_drivers() const;
  void make_coherence();
  void make_workers(int cpus);
  void make_scheduler();
  void name_trace_tracks();
  void start_workers();
  /// submit()'s wait for room under max_submitted, where waiting cannot stall the graph.
  void wait_for_room(std::unique_lock<std::mutex>& lock);
  void cpu_loop(Worker& w);
  void device_loop(Worker& w);
  enum class Ran { Done, Failed, Deferred };
  /// Runs a CPU task; Failed has been recorded; Deferred ends through finish_deferred.
  Ran run_cpu(Worker& w, runtime::Task* t);
  /// On a simulated platform: the CPU task's modelled time passes on the virtual clock.
  void run_modelled_cpu(Worker& w, runtime::Task* t, TaskContext& ctx);
  /// A deferred CPU task ended (Completion::done / fail), from any thread.
  void deferring(void* task) noexcept override;
  void finish_deferred(void* task, const char* error) noexcept override;
  enum class Launch { Started, Failed, Blocked };
  /// Prepares and enqueues a device task. Failed has been recorded; Blocked: its buffers do not
  /// fit now (those made resident stay pinned, w.prepared says how many); call again later.
  Launch launch_device(Worker& w, runtime::Task* t);
  void finish_device(Worker& w, Slot* slot);
  /// Whether the task at the front of the worker's lane has completed (mutex_).
  static bool front_landed(const Worker& w) { return !w.lane.empty() && w.lane.front()->landed; }
  /// Run-ahead, under mutex_: `t` was just enqueued on `w`'s lane; its successors count it among
  /// their predecessors on a lane, and may run ahead behind it.
  void note_on_lane(Worker& w, runtime::Task* t);
  /// `from`, enqueued on a lane, is an unfinished predecessor of `t`.
  static void count_on_lane(runtime::Task* from, runtime::Task* t);
  /// Queues `t` for the device whose lane holds all its unfinished predecessors, when that
  /// device can run it, the scheduler would place it there, and the depth allows.
  void try_run_ahead(runtime::Task* t);
  /// Whether `w`'s lane holds less predicted work than `round_trips` of its device's round trip
  /// (false where either is unknown).
  bool lane_needs_more(Worker& w, double round_trips = 1) const;
  /// Under mutex_ (released meanwhile), before the tasks of `done` are completed: the data they
  /// wrote that no later task uses, marked for an early write-back
  /// (RuntimeOptions::early_write_back) to be enqueued by the caller without the lock.
  void begin_early_write_backs(Worker& w, const std::vector<Slot*>& done,
                               std::unique_lock<std::mutex>& lock,
                               std::vector<data::CoherenceEngine::WriteBack*>& out);
  /// RuntimeOptions::prefetch, driver thread with mutex_ held (released while copying): starts the
  /// copies in of the next tasks in the worker's own queue not looked at yet, so that the queue
  /// holds at most device_tasks_in_flight such tasks ahead. Returns whether it looked at any.
  bool prefetch_queued(Worker& w, std::unique_lock<std::mutex>& lock);
  /// Under mutex_: tells the coherence engine which data the task about to launch and the tasks
  /// queued next for this worker read, in the order they will run (eviction by next use).
  void rank_next_uses(Worker& w, runtime::Task* launching);
  /// Whether all of `t`'s buffers would fit in `w`'s device memory beside what is allocated (an
  /// overestimate of the need: replicas already there count too), so that launching it evicts
  /// nothing.
  bool fits_beside_allocated(const Worker& w, const runtime::Task& t) const;
  static void on_device_done(void* user, const char* error);
  /// Device task times from the driver's timed operations (DriverConfig::time_tasks), into the
  /// completed slots' tasks; the rest goes to the trace.
  void collect_timings(Worker& w, const std::vector<Slot*>& done);

  // Thread accounting for the virtual clock (no-ops without one), under mutex_: a thread about to
  // wait dozes; whoever makes it runnable rouses it first, so the clock never jumps while a woken
  // thread has yet to run. Both are idempotent through the flag.
  void doze(bool& asleep);
  void rouse(bool& asleep);
  /// Waits on `cv` as a dozing thread until roused; in virtual time, then for its turn
  /// (VirtualClock::take_turn, keyed by the flag's address), with `lock` released meanwhile.
  void sleep_on(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, bool& asleep);
  void take_turn(std::unique_lock<std::mutex>& lock, const bool& asleep);
  /// Waits on done_cv_ until `ready()`, as a dozing user thread (runtime_impl_shared.hpp).
  template <typename Pred>
  void wait_user(std::unique_lock<std::mutex>& lock, Pred ready);
  /// The same until `deadline` at most (steady_clock::time_point::max(): none); returns ready().
  template <typename Pred>
  bool wait_user_until(std::unique_lock<std::mutex>& lock, Pred ready,
                       std::chrono::steady_clock::time_point deadline);
  void notify_user();

  // Under mutex_.
  void add_dependencies(runtime::Task* t);
  void make_ready(runtime::Task* t);
  void complete(runtime::Task* t, bool failed);
  void wake(const runtime::scheduler::Placement& p);
  void record_failure(const runtime::Task* t, std::string_view where, std::string_view what);

  /// The data's state; throws UsageError naming `use` (or the task `task`, when given).
  data::DataState& check_data(const Data& data, std::string_view use,
                              std::string_view task = {}) const;
  /// Brings every registered data home; returns the first failure ("" when all came home).
  std::string write_back_all();
  std::vector<std::shared_ptr<data::DataState>> registered() const;

  RuntimeOptions options_;
  std::chrono::steady_clock::time_point epoch_;
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers_;
  std::unique_ptr<device::Trace> trace_;
  std::unique_ptr<data::TransferStats> transfer_stats_;
  std::unique_ptr<data::CoherenceEngine> coherence_;
  std::shared_ptr<void> platform_;         // a simulated platform (keeps its clock alive)
  device::VirtualClock* clock_ = nullptr;  // the simulated platform's, else null
  std::unique_ptr<runtime::perfmodel::ModelStore> models_;  // model schedulers only

  mutable std::mutex registry_mutex_;
  std::vector<std::shared_ptr<data::DataState>> registry_;
  std::map<void*, device::DeviceDriver*> pinned_;  // pin_host ranges and who pinned them

  mutable std::mutex mutex_;
  std::condition_variable done_cv_;   // all tasks finished / an acquire granted
  std::vector<bool*> user_sleepers_;  // user threads dozing on done_cv_
  std::unique_ptr<runtime::scheduler::Scheduler> scheduler_;
  runtime::TaskPool pool_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<runtime::Task*> ready_stack_;  // reused by complete()
  TaskId next_id_ = 0;
  std::uint64_t submitted_ = 0;
  std::uint64_t finished_ = 0;
  // Bounded submission: submit() waits while submitted_ - finished_ >= max_submitted, and resumes
  // once it is down to resume_at_ (a little lower, so that a waiting thread is not woken per task).
  std::uint64_t resume_at_ = 0;
  bool submit_waiting_ = false;
  std::uint64_t deferred_ = 0;      ///< deferred CPU tasks not finished
  std::uint64_t submit_waits_ = 0;  ///< times submit() waited (stats)
  std::uint64_t tasks_run_ = 0;
  std::uint64_t tasks_run_ahead_ = 0;  ///< device tasks launched with predecessors on their lane
  int open_acquires_ = 0;
  bool stop_ = false;
  int run_ahead_ = 0;  ///< RuntimeOptions::run_ahead, 0 where it does not apply
  /// The default depth with several devices: a lane takes tasks ahead only while it holds less
  /// predicted work than its device's round trip (lane_needs_more).
  bool lanes_bounded_ = false;
  /// Tasks in flight by default (kInFlightAuto): beyond device_tasks_in_flight, up to
  /// kInFlightMost while the lane holds less predicted work than 1.5 round trips of its device.
  bool lanes_filled_ = false;
  /// Slots of each device worker: the most tasks it may hold in flight, filled or run ahead.
  int most_in_flight() const;
  std::string first_error_;
  std::uint64_t failed_ = 0;
  std::uint64_t cancelled_ = 0;
  // Runtime::wait(TaskId): which ids have finished, the failure of each task that failed or was
  // cancelled (kept for the runtime's life: failures are rare, and a task may be waited on after
  // wait_all has reported it), and how many user threads wait for one task (complete() wakes them).
  runtime::CompletionLog completed_;
  std::unordered_map<TaskId, std::string> task_failures_;
  int task_waiters_ = 0;
  /// `id`'s failure message, or null when it did not fail.
  const std::string* failure_of(TaskId id) const;
};

}  // namespace conveyor
