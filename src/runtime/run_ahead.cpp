// Run-ahead on device queues (RuntimeOptions::run_ahead), under the runtime's lock. A device task
// is released to its dependents only once the host has seen it complete: a host thread wakes on
// its completion event, the driver thread completes it, and only then is a dependent launched. A
// chain of small device tasks pays that wake-up and a launch per link. Here, a task whose
// unfinished predecessors are all enqueued on one device's lane goes to that device's own queue
// at once; its driver enqueues it behind them, and the device's queues order it after them (one
// in-order lane: stream order, an in-order OpenCL queue; copies in on a stream of their own wait
// on an event before the kernels, see the drivers). The host still completes every task, in lane
// order (device_loop), so dependents elsewhere, write-backs, wait_all and traces see each one.
//
// What keeps it safe:
//  - Coherence already treats a device replica as written once its writer is enqueued
//    (finish_on_device), so the task reads the replica its predecessor writes, in place, and never
//    copies in data that a predecessor on the lane has yet to produce elsewhere: every
//    predecessor it waits for is on this lane, and the others have completed.
//  - Every enqueued task pins its replicas until its completion is handled, so eviction never
//    frees or overwrites a block that a task on the lane will read or write.
//  - A failure: the failing task is reported as such; the tasks that ran ahead behind it are
//    cancelled when their completions are handled (after the failure, in lane order), and what
//    they wrote is discarded; tasks still queued ahead are cancelled when taken.
#include <fmt/format.h>

#include <algorithm>

#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

using runtime::Task;

void Runtime::Impl::count_on_lane(Task* from, Task* t) {
  if (t->kind != Task::Kind::Compute) return;
  if (t->on_lane++ == 0)
    t->lane = from->lane_of;
  else if (t->lane != from->lane_of)
    t->lane = Task::kMixedLanes;
}

void Runtime::Impl::note_on_lane(Worker& w, Task* t) {
  t->lane_of = w.index;
  for (Task* s : t->successors) {
    count_on_lane(t, s);
    try_run_ahead(s);
  }
}

void Runtime::Impl::try_run_ahead(Task* t) {
  if (t->kind != Task::Kind::Compute || t->cancelled || t->ahead != Task::Ahead::None ||
      t->pending == 0 || t->on_lane != t->pending || t->lane < 0)
    return;
  Worker& w = *workers_[t->lane];
  if (w.ahead >= run_ahead_ || !t->codelet->has(w.desc.kind)) return;
  if (lanes_bounded_ && !lane_needs_more(w)) return;
  runtime::scheduler::Placement p = scheduler_->decide(*t);
  const bool here =
      p.worker == w.index || (p.worker < 0 && (p.mask & runtime::scheduler::bit(w.desc.kind)));
  if (!here) {
    // The policy wants it elsewhere now, before it is ready: it is placed anew once it is (by
    // then another worker may be free first, or this lane may be).
    scheduler_->withdraw(*t, p);
    return;
  }
  t->ahead = Task::Ahead::Queued;
  t->ahead_worker = w.index;
  ++w.ahead;
  wake(scheduler_->enqueue(t, {w.index, 0}));
}

int Runtime::Impl::most_in_flight() const {
  const int ready = options_.device_tasks_in_flight;
  return std::max(lanes_filled_ ? RuntimeOptions::kInFlightMost : ready, ready + run_ahead_);
}

bool Runtime::Impl::lane_needs_more(Worker& w, double round_trips) const {
  // The lane runs dry before the host can release (or hand over) the next task only while it
  // holds less work than the device's round trip; beyond that a task gains nothing by being bound
  // to this device now: another device may be free first once it is ready, or a critical-path
  // task that becomes ready later would wait behind it. Without a known round trip or a policy
  // that predicts the lane's work, the answer is no.
  const double round_trip = w.driver->completion_seconds();
  const double lane = scheduler_->started_seconds(w.index);
  return round_trip > 0 && lane >= 0 && lane < round_trips * round_trip;
}

}  // namespace conveyor
