// The device worker: one driver thread per device that prefetches the inputs of its queued tasks,
// reserves room and copies in (a task whose buffers do not fit waits, keeping its room), launches
// on the driver's lane, and on the driver's callback (on_device_done) unpins, collects the measured
// times, starts early write-backs and completes the tasks. The lock rules it follows are in
// docs/architecture.md ("Threads, drivers and locks").
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <span>

#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

using runtime::Task;
using runtime::TaskAccess;

void Runtime::Impl::on_device_done(void* user, const char* error) {
  auto* slot = static_cast<Slot*>(user);
  if (error) slot->error = error;
  Impl* self = slot->impl;
  std::lock_guard lock(self->mutex_);
  slot->landed = true;
  if (slot != slot->worker->lane.front()) return;  // the earlier ones' completions wake it
  self->rouse(slot->worker->asleep);
  slot->worker->cv.notify_one();
}

void Runtime::Impl::device_loop(Worker& w) {
  runtime_thread_of = this;
  // Up to device_tasks_in_flight tasks in flight, more (by default) while the lane holds less
  // predicted work than the device's round trip, and run_ahead more when the next one runs ahead.
  const int ready_capacity = options_.device_tasks_in_flight;
  const int filled_capacity = lanes_filled_ ? RuntimeOptions::kInFlightMost : ready_capacity;
  const int capacity = ready_capacity + run_ahead_;
  constexpr double kFillRoundTrips = 1.5;
  auto next_runs_ahead = [&] {
    std::span<Task* const> queue = scheduler_->own_queue(w.index);
    return !queue.empty() && queue.front()->ahead == Task::Ahead::Queued;
  };
  // Beyond the count while the lane holds less predicted work than 1.5 round trips (the host
  // handles the completions and launches the next tasks after it learns of them: 5.1 us a task
  // at 1, 4.7 at 1.5 and 4.6 at 2 on the H200 twin, Cholesky n = 4096, tile 128), and only while
  // the next task's buffers fit beside what is allocated: a deeper lane pins more blocks, and out
  // of core that costs evictions of blocks needed soon (docs/results/runtime.md, "Tasks in
  // flight").
  auto next_fits = [&] {
    std::span<Task* const> queue = scheduler_->own_queue(w.index);
    return queue.empty() || fits_beside_allocated(w, *queue.front());
  };
  // A lane with tasks but no predicted work left has no predictions to go by (tasks without a
  // model yet, or overrunning theirs): no filling on them.
  auto lane_short = [&] {
    return scheduler_->started_seconds(w.index) > 0 && lane_needs_more(w, kFillRoundTrips);
  };
  auto room = [&] {
    return w.in_flight < ready_capacity ||
           (w.in_flight < filled_capacity && lane_short() && next_fits()) ||
           (w.in_flight < capacity && next_runs_ahead());
  };
  std::vector<Slot*> done;
  std::vector<data::CoherenceEngine::WriteBack*> early;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (front_landed(w)) {
      while (front_landed(w)) {
        done.push_back(w.lane.front());
        w.lane.pop_front();
      }
      // In lane order: a task that ran ahead of a predecessor that failed (in this batch or an
      // earlier one) is cancelled, and so are the tasks behind it, before any of their results
      // counts: finish_device then discards what they wrote.
      for (Slot* s : done) {
        s->cancelled = s->task->cancelled;
        if (!s->error.empty() || s->cancelled)
          for (Task* next : s->task->successors) next->cancelled = true;
      }
      lock.unlock();
      for (Slot* s : done) finish_device(w, s);
      collect_timings(w, done);
      lock.lock();
      early.clear();
      if (options_.early_write_back) begin_early_write_backs(w, done, lock, early);
      for (Slot* s : done) {
        bool ok = s->error.empty();
        if (s->cancelled) {
          ++cancelled_;  // its own error, if any, follows from its predecessor's
          complete(s->task, true);
        } else {
          if (!ok) record_failure(s->task, w.driver->id(), s->error);
          complete(s->task, !ok);
          ++w.tasks;
          ++tasks_run_;
        }
        s->task = nullptr;
        s->error.clear();
        s->landed = s->cancelled = false;
        w.free_slots.push_back(s);
        if (--w.in_flight == 0) w.busy_seconds += now_s() - w.busy_since;
      }
      done.clear();
      if (!early.empty()) {
        lock.unlock();
        coherence_->notify_write_backs(w.desc.space, early);
        lock.lock();
      }
      continue;
    }
    // The waiting task first: it holds part of its buffers; a new task would compete for room.
    Task* t = w.waiting;
    if (!t && room()) {
      t = scheduler_->pop(w.index);
      if (t && t->cancelled) {
        // Queued to run ahead, then a predecessor on the lane failed: it does not run.
        scheduler_->on_cancel(*t, w.index);
        ++cancelled_;
        if (t->pending == 0)
          complete(t, true);
        else
          t->ahead = Task::Ahead::Dropped;  // completed once its predecessors are
        continue;
      }
      if (t && t->ahead == Task::Ahead::Queued) {
        t->ahead = t->pending > 0 ? Task::Ahead::Launched : Task::Ahead::None;
        tasks_run_ahead_ += t->pending > 0;
      }
      if (t && w.in_flight++ == 0) w.busy_since = now_s();
    }
    if (t) {
      std::uint64_t events = w.memory_events;
      rank_next_uses(w, t);
      lock.unlock();
      Launch launched = launch_device(w, t);
      lock.lock();
      w.waiting = launched == Launch::Blocked ? t : nullptr;
      if (launched == Launch::Started && run_ahead_ > 0) note_on_lane(w, t);
      if (launched == Launch::Failed) {
        if (t->pending == 0) {
          complete(t, true);
        } else {  // it ran ahead: completed (as failed) once its predecessors are
          t->cancelled = true;
          t->ahead = Task::Ahead::Dropped;
        }
        if (--w.in_flight == 0) w.busy_seconds += now_s() - w.busy_since;
      }
      if (launched != Launch::Blocked) continue;
      if (front_landed(w) || w.memory_events != events) continue;  // room came meanwhile
      // Room comes from tasks in flight ending or write-backs landing, which wake this thread.
      // With neither, it is held by replicas busy for a moment (a host copy under their lock,
      // a peer copy's source): look again shortly rather than fail.
      bool others = w.in_flight > 1 || coherence_->write_backs_in_flight(w.desc.space) > 0;
      w.idle = false;
      if (others) {
        sleep_on(w.cv, lock, w.asleep);
      } else {
        doze(w.asleep);
        w.cv.wait_for(lock, std::chrono::milliseconds(1));
        rouse(w.asleep);
        take_turn(lock, w.asleep);
      }
      continue;
    }
    if (stop_ && w.in_flight == 0) break;
    if (options_.prefetch && prefetch_queued(w, lock)) continue;
    w.idle = w.in_flight < capacity;
    sleep_on(w.cv, lock, w.asleep);
    w.idle = false;
  }
}

bool Runtime::Impl::prefetch_queued(Worker& w, std::unique_lock<std::mutex>& lock) {
  // Under mutex_: only this thread takes from its own queue, so the tasks looked at here (and
  // their data: unregistering waits for them) stay until it launches them.
  constexpr std::size_t kLook = 16;
  const int window = options_.device_tasks_in_flight;
  std::span<runtime::Task* const> queue = scheduler_->own_queue(w.index);
  int ahead = 0;
  bool looked = false;
  w.prefetch_list.clear();
  for (std::size_t i = 0; i < std::min(kLook, queue.size()) && ahead < window; ++i) {
    Task* t = queue[i];
    ++ahead;
    if (t->prefetch_seen) continue;
    t->prefetch_seen = true;
    looked = true;
    for (const auto& a : t->accesses)
      if (reads(a.mode)) w.prefetch_list.push_back(a.data);
  }
  if (w.prefetch_list.empty()) return looked;
  lock.unlock();
  try {
    for (data::DataState* d : w.prefetch_list)
      if (!coherence_->prefetch(*d, w.desc.space)) break;  // no free room: the rest load at launch
  } catch (const std::exception&) {
    // A copy that could not be enqueued: the task's launch copies (and reports) it.
  }
  lock.lock();
  return looked;
}

bool Runtime::Impl::fits_beside_allocated(const Worker& w, const Task& t) const {
  const data::DeviceMemory& memory = coherence_->memory(w.desc.space);
  std::uint64_t need = 0;
  for (const auto& a : t.accesses) need += a.data->bytes();
  return memory.used() + need <= memory.limit();
}

void Runtime::Impl::rank_next_uses(Worker& w, Task* launching) {
  // Under mutex_: only this thread takes from its own queue, so these tasks (and their data)
  // stay until it launches them. The next kAhead tasks in the order the queue gives them out
  // (priority, then readiness): further ones count as "queued" through their readers' count.
  // Only an allocation for a launch that does not fit evicts (prefetches take free room only),
  // and only this thread allocates in its space: while the task's buffers fit beside what is
  // allocated, no ranking is needed. Ranking at every launch cost 3.4 us a launch on vm-xeon2
  // (the H200 twin in core, n = 4096, tile 128: 18 % of the host's CPU time).
  if (fits_beside_allocated(w, *launching)) return;
  constexpr std::size_t kAhead = 64;
  scheduler_->next_in_queue(w.index, kAhead, w.next_tasks);
  w.next_reads.clear();
  // The launching task's own inputs first: reserving one buffer must not evict the next.
  for (const auto& a : launching->accesses) w.next_reads.push_back(a.data);
  for (const Task* next : w.next_tasks)
    for (const auto& a : next->accesses)
      if (reads(a.mode)) w.next_reads.push_back(a.data);
  coherence_->rank_next_uses(w.desc.space, w.next_reads);
}

void Runtime::Impl::begin_early_write_backs(Worker& w, const std::vector<Slot*>& done,
                                            std::unique_lock<std::mutex>& lock,
                                            std::vector<data::CoherenceEngine::WriteBack*>& out) {
  // Under mutex_: the graph says whether a task submitted after one of these uses the data (it
  // is still its last writer, or a later task reads or writes it).
  w.early_list.clear();
  for (Slot* s : done) {
    if (!s->error.empty()) continue;
    for (const auto& a : s->task->accesses) {
      const data::DataState& d = *a.data;
      if (writes(a.mode) && d.last_writer == s->task && d.readers.empty())
        w.early_list.push_back(a.data);
    }
  }
  if (w.early_list.empty()) return;
  // The copies start without mutex_: begin_early_write_back takes the data's lock, whose holder
  // may be inside a blocking copy that waits for a completion callback, which takes mutex_. The
  // tasks are not completed yet, so their data cannot be unregistered meanwhile; a task submitted
  // meanwhile that uses the data only makes the copy unneeded (or stale: it then lands as such).
  lock.unlock();
  for (data::DataState* d : w.early_list)
    if (auto* wb = coherence_->begin_early_write_back(*d, w.desc.space)) out.push_back(wb);
  lock.lock();
}

Runtime::Impl::Launch Runtime::Impl::launch_device(Worker& w, Task* t) {
  const int space = w.desc.space;
  TaskContext& ctx = w.context;
  auto& buffers = device::TaskContextAccess::buffers(ctx);
  auto unpin_all = [&] {
    for (std::size_t i = 0; i < w.prepared; ++i)
      coherence_->unpin(*t->accesses[i].data, space, w.reservations[i]);
    for (auto& [d, source] : w.peer_pins) coherence_->unpin_peer_source(*d, source);
    w.peer_pins.clear();
    w.prepared = 0;
  };
  try {
    if (w.prepared == 0) {
      t->worker = w.index;
      buffers.resize(t->accesses.size());
      // The one case waiting cannot help: the task's own buffers exceed the device.
      std::uint64_t need = 0;
      for (const auto& a : t->accesses) need += a.data->bytes();
      std::uint64_t limit = coherence_->memory(space).limit();
      if (need > limit)
        throw DeviceError(fmt::format(
            "its {} buffer{} need {} on {}, more than the device's {} (device_memory_limit); "
            "split its data into smaller pieces",
            t->accesses.size(), t->accesses.size() == 1 ? "" : "s", format_bytes(need),
            w.driver->id(), format_bytes(limit)));
    }
    // Room for every buffer first (the task may wait here, holding what it has), then the copies.
    // Under peer-direct what it holds includes the peers' replicas it reads in place. Waiting
    // tasks cannot hold each other for ever that way: once the tasks in flight end, a task still
    // waits only if other devices' waiting tasks pin more of its device than its own peer reads
    // take (its buffers together fit the limit), which cannot hold on every device at once.
    // (Letting go of them while waiting was tried: the waiting tasks kept waking each other.)
    w.reservations.resize(t->accesses.size());
    for (; w.prepared < t->accesses.size(); ++w.prepared) {
      const TaskAccess& a = t->accesses[w.prepared];
      int reservation = coherence_->reserve_on_device(*a.data, space, a.mode);
      if (reservation == data::CoherenceEngine::kNoRoom) return Launch::Blocked;
      w.reservations[w.prepared] = reservation;
    }
    for (std::size_t i = 0; i < t->accesses.size(); ++i) {
      const TaskAccess& a = t->accesses[i];
      int peer_source = 0;
      void* block =
          coherence_->prepare_on_device(*a.data, space, a.mode, &peer_source, w.reservations[i]);
      if (peer_source) w.peer_pins.emplace_back(a.data, peer_source);
      buffers[i] = {block, a.data->elem_size, a.data->rows, a.data->cols, a.data->rows};
    }
    device::TaskContextAccess::set_task(ctx, w.desc.kind, w.driver->id(), w.index, t->label(),
                                        t->id, {t->args.data(), t->args_bytes});
    w.driver->launch(*t->codelet, ctx);
    for (const auto& a : t->accesses) coherence_->finish_on_device(*a.data, space, a.mode);
    Slot* slot = nullptr;
    {
      std::lock_guard lock(mutex_);
      slot = w.free_slots.back();
      w.free_slots.pop_back();
      slot->task = t;
      w.lane.push_back(slot);  // before notify: its completion may come at once
    }
    slot->peer_pins.swap(w.peer_pins);
    slot->reservations.swap(w.reservations);
    w.peer_pins.clear();
    w.prepared = 0;
    w.driver->notify(&Impl::on_device_done, slot);
    return Launch::Started;
  } catch (const std::exception& e) {
    unpin_all();
    std::lock_guard lock(mutex_);
    record_failure(t, w.driver->id(), e.what());
    return Launch::Failed;
  }
}

void Runtime::Impl::finish_device(Worker& w, Slot* slot) {
  const auto& accesses = slot->task->accesses;
  // A failed kernel may have written part of its buffers: they go back to their last whole state;
  // a failed copy may have filled part of an input: copied again when next needed. So do those of
  // a task cancelled on the lane (run ahead behind one that failed): it ran, and what it wrote,
  // maybe from inputs copied in after the failure, is no state the graph passed through.
  if (!slot->error.empty() || slot->cancelled)
    for (const auto& a : accesses) coherence_->discard_after_failure(*a.data, w.desc.space, a.mode);
  for (std::size_t i = 0; i < accesses.size(); ++i)
    coherence_->unpin(*accesses[i].data, w.desc.space, slot->reservations[i]);
  for (auto& [d, source] : slot->peer_pins) coherence_->unpin_peer_source(*d, source);
  slot->peer_pins.clear();
}

void Runtime::Impl::collect_timings(Worker& w, const std::vector<Slot*>& done) {
  w.timed.clear();
  w.driver->drain_trace(w.timed);
  for (const auto& op : w.timed) {
    using K = device::TimedOp::Kind;
    if (op.kind == K::Task)
      for (Slot* s : done)
        if (s->task->id == op.task) s->task->exec_seconds = (op.end_us - op.start_us) * 1e-6;
    if (!trace_) continue;
    int tid = op.kind == K::Task  ? device::kDeviceWorkerTid
              : op.kind == K::H2D ? device::kH2dTid
              : op.kind == K::D2H ? device::kD2hTid
                                  : device::kD2dTid;
    const char* name = op.kind == K::Task  ? op.name.c_str()
                       : op.kind == K::H2D ? "copy h2d"
                       : op.kind == K::D2H ? "copy d2h"
                                           : "copy d2d";
    trace_->add(w.desc.space + 1, tid, name, op.kind == K::Task ? "task" : "transfer", op.start_us,
                op.end_us);
  }
}

}  // namespace conveyor
