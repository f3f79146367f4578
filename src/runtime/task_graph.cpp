// The task graph, from submit to release, all under the runtime's lock: a task's dependencies
// inferred from submission order, handing ready tasks to the scheduler and waking a worker,
// completion (and the cancellation of a failed task's dependants), wait_all, and acquire/release,
// which enter the same graph as tasks of kind Acquire. The workers that run the tasks are
// cpu_worker.cpp and device_worker.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "conveyor/error.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

using runtime::Task;

TaskId Runtime::Impl::submit(const Codelet& codelet, std::span<const DataAccess> accesses,
                             int priority, std::string_view name, std::span<const std::byte> args) {
  const auto& impl = device::CodeletAccess::impl(codelet);
  std::string_view label = name.empty() ? std::string_view(impl->name) : name;
  scheduler_->check(*impl);
  if (args.size() > runtime::kMaxArgsBytes)
    throw UsageError(fmt::format("task '{}': args of {} bytes (at most {})", label, args.size(),
                                 runtime::kMaxArgsBytes));
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    data::DataState& d = check_data(accesses[i].data, {}, label);
    for (std::size_t j = 0; j < i; ++j)
      if (data::DataAccess::state(accesses[j].data) == &d)
        throw UsageError(fmt::format("task '{}': {} given twice", label, d.describe()));
  }

  std::unique_lock lock(mutex_);
  if (submitted_ - finished_ >= options_.max_submitted) wait_for_room(lock);
  for (const auto& a : accesses)
    if (data::DataAccess::state(a.data)->partitioned)
      throw UsageError(
          fmt::format("task '{}': {} is partitioned into tiles; use its tiles or "
                      "unpartition it",
                      label, data::DataAccess::state(a.data)->describe()));
  Task* t = pool_.get();
  t->id = ++next_id_;
  completed_.issued(t->id);
  t->codelet = impl;
  t->name.assign(name);
  t->priority = priority;
  for (const auto& a : accesses) t->accesses.push_back({data::DataAccess::state(a.data), a.mode});
  if (!args.empty()) std::memcpy(t->args.data(), args.data(), args.size());
  t->args_bytes = args.size();
  ++submitted_;
  for (const auto& a : t->accesses)
    if (a.data->poisoned) t->cancelled = true;
  add_dependencies(t);
  // The id is read first: a task cancelled at once (its data poisoned by a failure) is completed
  // and recycled inside make_ready.
  const TaskId id = t->id;
  if (t->pending == 0)
    make_ready(t);
  else if (run_ahead_ > 0)
    try_run_ahead(t);
  return id;
}

void Runtime::Impl::wait_for_room(std::unique_lock<std::mutex>& lock) {
  if (runtime_thread_of == this || open_acquires_ > 0 || deferred_ > 0) return;
  ++submit_waits_;
  submit_waiting_ = true;
  wait_user(lock, [&] {
    return submitted_ - finished_ <= resume_at_ || open_acquires_ > 0 || deferred_ > 0 || stop_;
  });
  submit_waiting_ = false;
}

void Runtime::Impl::add_dependencies(Task* t) {
  auto edge = [t](Task* from) {
    if (!from || from == t) return;
    from->successors.push_back(t);
    ++t->pending;
    if (from->lane_of >= 0) count_on_lane(from, t);
  };
  for (const auto& a : t->accesses) {
    data::DataState& d = *a.data;
    edge(d.last_writer);
    if (writes(a.mode)) {
      for (Task* r : d.readers) edge(r);
      d.readers.clear();
      d.last_writer = t;
    } else {
      d.readers.push_back(t);
    }
  }
}

void Runtime::Impl::make_ready(Task* t) {
  if (t->kind == Task::Kind::Acquire) {
    t->granted = true;
    notify_user();
    return;
  }
  if (t->cancelled) {
    ++cancelled_;
    complete(t, true);
    return;
  }
  wake(scheduler_->push(t));
}

void Runtime::Impl::wake(const runtime::scheduler::Placement& p) {
  if (p.worker >= 0) {
    Worker& w = *workers_[p.worker];
    if (w.idle) {
      w.idle = false;
      rouse(w.asleep);
      w.cv.notify_one();
    } else if (options_.prefetch && w.driver && w.asleep && !w.waiting) {
      // Busy with tasks in flight: its driver starts this task's copies in now (prefetch_queued).
      rouse(w.asleep);
      w.cv.notify_one();
    }
    return;
  }
  for (auto& w : workers_)
    if (w->idle && (p.mask & runtime::scheduler::bit(w->desc.kind))) {
      w->idle = false;
      rouse(w->asleep);
      w->cv.notify_one();
      return;
    }
}

void Runtime::Impl::complete(Task* t, bool failed) {
  // Iterative: a failure cancels whole chains of dependants.
  std::size_t base = ready_stack_.size();
  ready_stack_.push_back(t);
  while (ready_stack_.size() > base) {
    Task* task = ready_stack_.back();
    ready_stack_.pop_back();
    bool bad = failed || task->cancelled;
    completed_.finished(task->id);
    if (task->cancelled)
      task_failures_.emplace(task->id, fmt::format("task '{}' (#{}) was not run: a task it "
                                                   "depends on failed",
                                                   task->label(), task->id));
    for (const auto& a : task->accesses) {
      data::DataState& d = *a.data;
      if (bad && writes(a.mode)) d.poisoned = true;
      if (d.last_writer == task) d.last_writer = nullptr;
      auto it = std::find(d.readers.begin(), d.readers.end(), task);
      if (it != d.readers.end()) {
        *it = d.readers.back();
        d.readers.pop_back();
      }
    }
    for (Task* s : task->successors) {
      if (bad) s->cancelled = true;
      if (task->lane_of >= 0 && s->kind == Task::Kind::Compute && --s->on_lane == 0) s->lane = -1;
      if (--s->pending == 0) {
        if (s->ahead == Task::Ahead::Queued || s->ahead == Task::Ahead::Launched) {
          // Run ahead: its device worker ends it (takes it from its queue, or completes it after
          // this task on its lane).
        } else if (s->ahead == Task::Ahead::Dropped) {
          s->cancelled = true;  // counted when dropped: as cancelled, or its launch as failed
          ready_stack_.push_back(s);
        } else if (s->kind == Task::Kind::Acquire) {
          s->granted = true;
          notify_user();
        } else if (s->cancelled) {
          ++cancelled_;
          ready_stack_.push_back(s);
        } else {
          wake(scheduler_->push(s));
        }
      } else if (run_ahead_ > 0 && !bad) {
        try_run_ahead(s);  // its predecessors left may all be on one lane now
      }
    }
    if (task->ahead_worker >= 0) --workers_[task->ahead_worker]->ahead;
    if (task->kind == Task::Kind::Compute) {
      if (task->worker >= 0) scheduler_->on_complete(*task);
      ++finished_;
      pool_.put(task);
    }
    failed = false;  // only the first task failed; the others are cancelled
  }
  if (finished_ == submitted_ || task_waiters_ > 0 ||
      (submit_waiting_ && submitted_ - finished_ <= resume_at_))
    notify_user();
}

void Runtime::Impl::record_failure(const Task* t, std::string_view where, std::string_view what) {
  ++failed_;
  std::string message = fmt::format("task '{}' (codelet '{}', #{}) failed on {}: {}", t->label(),
                                    t->codelet ? t->codelet->name : "-", t->id, where, what);
  if (first_error_.empty()) first_error_ = message;
  task_failures_.emplace(t->id, std::move(message));
}

const std::string* Runtime::Impl::failure_of(TaskId id) const {
  if (task_failures_.empty()) return nullptr;  // the usual case: no lookup
  auto it = task_failures_.find(id);
  return it == task_failures_.end() ? nullptr : &it->second;
}

bool Runtime::Impl::wait(TaskId id, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (id == 0 || id > next_id_)
    throw UsageError(next_id_ == 0
                         ? fmt::format("wait: no task #{}: none submitted yet", id)
                         : fmt::format("wait: no task #{} (the last is #{})", id, next_id_));
  ++task_waiters_;
  const bool done = wait_user_until(
      lock, [&] { return completed_.done(id); }, deadline);
  --task_waiters_;
  if (!done) return false;
  if (const std::string* failure = failure_of(id)) throw Error(*failure);
  return true;
}

bool Runtime::Impl::finished(TaskId id) const {
  std::lock_guard lock(mutex_);
  if (id == 0 || id > next_id_) throw UsageError(fmt::format("finished: no task #{}", id));
  return completed_.done(id);
}

std::string Runtime::Impl::write_back_all() {
  // Every data that can come home does, even when another cannot (a failed device). Home is
  // the user's memory: on the host, or on a device for data registered there.
  std::string first;
  int failures = 0;
  for (auto& d : registered()) try {
      coherence_->fetch_home(*d);
    } catch (const DeviceError& e) {
      if (failures++ == 0) first = e.what();
    }
  if (failures > 1) first += fmt::format(" (and {} more data)", failures - 1);
  return first;
}

void Runtime::Impl::wait_all() {
  {
    std::unique_lock lock(mutex_);
    if (open_acquires_ > 0)
      throw UsageError("wait_all while a HostAccess from acquire() is held: release it first");
    wait_user(lock, [&] { return finished_ == submitted_; });
  }
  const std::string copy_home_error = write_back_all();
  if (clock_) clock_->settle();  // the copies back happened under locks: their time is owed
  std::lock_guard lock(mutex_);
  if (first_error_.empty() && !copy_home_error.empty()) throw DeviceError(copy_home_error);
  if (!first_error_.empty()) {
    std::string message = std::move(first_error_);
    if (failed_ > 1) message += fmt::format(" ({} tasks failed in all)", failed_);
    if (cancelled_ > 0)
      message +=
          fmt::format("; {} dependent task{} not run", cancelled_, cancelled_ == 1 ? "" : "s");
    if (!copy_home_error.empty()) message += "; then " + copy_home_error;
    first_error_.clear();
    failed_ = cancelled_ = 0;
    std::lock_guard registry_lock(registry_mutex_);
    for (auto& d : registry_) d->poisoned = false;
    throw Error(message);
  }
}

Task* Runtime::Impl::acquire(const Data& data, Access mode, bool to_host) {
  data::DataState& d = check_data(data, "acquire");
  Task* t = nullptr;
  {
    std::unique_lock lock(mutex_);
    if (d.partitioned)
      throw UsageError(fmt::format("acquire: {} is partitioned; acquire its tiles", d.describe()));
    t = pool_.get();
    t->kind = Task::Kind::Acquire;
    t->id = ++next_id_;
    completed_.issued(t->id);
    t->accesses.push_back({&d, mode});
    ++open_acquires_;
    add_dependencies(t);
    if (t->pending == 0) t->granted = true;
    wait_user(lock, [&] { return t->granted; });
  }
  if (!to_host) return t;
  try {
    coherence_->prepare_host(d, mode);
    if (writes(mode)) coherence_->commit_host_write(d);
    if (clock_) clock_->settle();
  } catch (...) {
    release(t);
    throw;
  }
  return t;
}

void Runtime::Impl::release(Task* t) {
  std::lock_guard lock(mutex_);
  complete(t, false);
  --open_acquires_;
  pool_.put(t);
  notify_user();
}

}  // namespace conveyor
