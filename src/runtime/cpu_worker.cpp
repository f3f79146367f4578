// The CPU worker: one pinned thread per RuntimeOptions::cpus that takes tasks from the scheduler,
// brings their data home, runs the codelet's CPU function (on a simulated platform, its modelled
// time on the virtual clock) and completes them; and the end of a task that deferred its end
// (Completion), which may come from any thread.
#include <chrono>
#include <exception>
#include <string>

#include "conveyor/error.hpp"
#include "core/thread_team.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

using runtime::Task;

void Runtime::Impl::cpu_loop(Worker& w) {
  runtime_thread_of = this;
  if (w.cpu >= 0) core::pin_current_thread(w.cpu);
  std::unique_lock lock(mutex_);
  Task* t = nullptr;
  Ran ran = Ran::Done;
  for (;;) {
    if (t && ran != Ran::Deferred) complete(t, ran == Ran::Failed);
    t = nullptr;
    t = scheduler_->pop(w.index);
    if (!t) {
      if (stop_) break;
      w.idle = true;
      sleep_on(w.cv, lock, w.asleep);
      w.idle = false;
      continue;
    }
    lock.unlock();
    ran = run_cpu(w, t);
    lock.lock();
    ++w.tasks;
    ++tasks_run_;
  }
}

Runtime::Impl::Ran Runtime::Impl::run_cpu(Worker& w, Task* t) {
  using device::TaskContextAccess;
  auto start = std::chrono::steady_clock::now();
  double trace_start = 0;
  t->worker = w.index;
  TaskContext& ctx = w.context;
  auto& buffers = TaskContextAccess::buffers(ctx);
  buffers.resize(t->accesses.size());
  try {
    for (std::size_t i = 0; i < t->accesses.size(); ++i) {
      data::DataState& d = *t->accesses[i].data;
      coherence_->prepare_host(d, t->accesses[i].mode);
      buffers[i] = {d.host, d.elem_size, d.rows, d.cols, d.ld};
    }
    TaskContextAccess::set_task(ctx, DeviceKind::Cpu, "cpu", w.index, t->label(), t->id,
                                {t->args.data(), t->args_bytes});
    TaskContextAccess::allow_defer(ctx, this, t);
    if (trace_) trace_start = trace_->now_us();  // after the copies in, which have their own track
    if (clock_) {
      run_modelled_cpu(w, t, ctx);
      // A task that deferred its end (the MPI layer's sends and receives) ends in finish_deferred.
      return TaskContextAccess::deferred(ctx) ? Ran::Deferred : Ran::Done;
    }
    t->codelet->fn(DeviceKind::Cpu)(ctx);
    if (TaskContextAccess::deferred(ctx)) {
      // Its end (and the commit of what it writes) comes through finish_deferred, maybe already.
      w.busy_seconds += seconds_since(start);
      return Ran::Deferred;
    }
    for (const auto& a : t->accesses)
      if (writes(a.mode)) coherence_->commit_host_write(*a.data);
  } catch (const std::exception& e) {
    // A task that deferred and then threw still owns its Completion, which fails it.
    if (TaskContextAccess::deferred(ctx)) return Ran::Deferred;
    std::lock_guard lock(mutex_);
    record_failure(t, w.desc.name, e.what());
    return Ran::Failed;
  } catch (...) {
    if (TaskContextAccess::deferred(ctx)) return Ran::Deferred;
    std::lock_guard lock(mutex_);
    record_failure(t, w.desc.name, "unknown exception");
    return Ran::Failed;
  }
  double seconds = seconds_since(start);
  w.busy_seconds += seconds;
  t->exec_seconds = seconds;
  if (trace_)
    trace_->add(device::kHostPid, w.index + 1, t->codelet->name, "task", trace_start,
                trace_->now_us());
  return Ran::Done;
}

void Runtime::Impl::run_modelled_cpu(Worker& w, Task* t, TaskContext& ctx) {
  if (!clock_->cpu_task_seconds)
    throw UsageError("the simulated platform has no model for CPU tasks");
  double start = clock_->thread_now_s();  // after the copies in, owed by this thread
  const bool control = t->codelet->control;
  double seconds = control ? 0.0 : clock_->cpu_task_seconds(*t->codelet, ctx);
  if (control || clock_->run_cpu_functions) t->codelet->fn(DeviceKind::Cpu)(ctx);
  // Deferred: not done yet, and maybe finished already by another thread (finish_deferred commits
  // its writes); it must not be ended here too (found by bench/soak.sh: a rank on a simulated
  // platform ended its receives before the data came, and hung or crashed).
  if (device::TaskContextAccess::deferred(ctx)) return;
  clock_->sleep_for(seconds);
  for (const auto& a : t->accesses)
    if (writes(a.mode)) coherence_->commit_host_write(*a.data);
  w.busy_seconds += seconds;
  t->exec_seconds = seconds;
  if (trace_)
    trace_->add(device::kHostPid, w.index + 1, t->codelet->name, "task", start * 1e6,
                clock_->now_s() * 1e6);
}

// Counted when defer() is called, before the Completion can reach another thread: a submit that
// sees no deferred task outstanding may wait for room, and must not if this task's end is what
// the submitting thread will bring.
void Runtime::Impl::deferring(void*) noexcept {
  std::lock_guard lock(mutex_);
  ++deferred_;
}

void Runtime::Impl::finish_deferred(void* task, const char* error) noexcept {
  auto* t = static_cast<Task*>(task);
  std::string failure = error ? error : "";
  if (!error) {
    try {
      for (const auto& a : t->accesses)
        if (writes(a.mode)) coherence_->commit_host_write(*a.data);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  std::lock_guard lock(mutex_);
  if (!failure.empty()) record_failure(t, workers_[t->worker]->desc.name, failure);
  --deferred_;
  if (deferred_ == 0 && submit_waiting_) notify_user();  // it waits no more if it waited
  complete(t, !failure.empty());
}

}  // namespace conveyor
