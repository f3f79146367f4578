#include "runtime/scheduler/scheduler.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"

namespace conveyor::runtime {

std::unique_ptr<Scheduler> make_eager_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_round_robin_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_offload_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_locality_scheduler(SchedulerContext context);

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, SchedulerContext context) {
  if (name == "eager") return make_eager_scheduler(std::move(context));
  if (name == "round-robin") return make_round_robin_scheduler(std::move(context));
  if (name == "offload") return make_offload_scheduler(std::move(context));
  if (name == "locality") return make_locality_scheduler(std::move(context));
  throw UsageError(fmt::format(
      "unknown scheduler '{}'; schedulers: eager, round-robin, offload, locality", name));
}

bool measures_device_tasks(std::string_view /*name*/) { return false; }

Scheduler::Scheduler(SchedulerContext context) : context_(std::move(context)) {
  for (const auto& w : context_.workers) present_ |= bit(w.kind);
  per_worker_.resize(context_.workers.size());
}

KindMask Scheduler::runnable(const detail::CodeletImpl& c) const {
  KindMask m = 0;
  for (std::size_t k = 0; k < detail::kDeviceKinds; ++k)
    if (c.run[k]) m |= 1u << k;
  return m & present_;
}

bool Scheduler::offloaded(const detail::CodeletImpl& codelet) const {
  return context_.offload.find(codelet.name) != context_.offload.end();
}

std::size_t Scheduler::bytes_valid(const Task& task, int space) const {
  std::size_t bytes = 0;
  for (const auto& a : task.accesses)
    if (context_.coherence->valid_in(*a.data, space)) bytes += a.data->bytes();
  return bytes;
}

std::size_t Scheduler::bytes_missing(const Task& task, int space) const {
  std::size_t bytes = 0;
  for (const auto& a : task.accesses)
    bytes += context_.coherence->bytes_missing(*a.data, space, a.mode);
  return bytes;
}

void Scheduler::check(const detail::CodeletImpl& codelet) const {
  if (runnable(codelet) == 0) {
    std::string kinds;
    for (const auto& w : context_.workers)
      if (kinds.find(std::string(to_string(w.kind))) == std::string::npos)
        kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(w.kind));
    throw UsageError(fmt::format(
        "codelet '{}' has no implementation for the runtime's workers ({})", codelet.name, kinds));
  }
}

Placement Scheduler::push(Task* task) {
  Placement p = place(*task);
  task->seq = ++seq_;
  if (p.worker >= 0)
    per_worker_[p.worker].push(task);
  else
    pools_[p.mask].push(task);
  ++ready_;
  return p;
}

Task* Scheduler::pop(int worker) {
  if (ready_ == 0) return nullptr;
  KindMask mine = bit(context_.workers[worker].kind);
  Queue* best = per_worker_[worker].empty() ? nullptr : &per_worker_[worker];
  for (int m = 1; m < kMasks; ++m) {
    if (!(m & mine) || pools_[m].empty()) continue;
    if (!best || Later()(best->top(), pools_[m].top())) best = &pools_[m];
  }
  if (!best) return nullptr;
  Task* t = best->top();
  best->pop();
  --ready_;
  on_start(*t, worker);
  return t;
}

}  // namespace conveyor::runtime
