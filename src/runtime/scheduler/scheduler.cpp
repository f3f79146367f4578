#include "runtime/scheduler/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "conveyor/error.hpp"
#include "runtime/perfmodel/models.hpp"

namespace conveyor::runtime::scheduler {

std::unique_ptr<Scheduler> make_eager_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_round_robin_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_offload_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_locality_scheduler(SchedulerContext context);
std::unique_ptr<Scheduler> make_model_scheduler(SchedulerContext context, bool ready_first);

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, SchedulerContext context) {
  if (name == "eager") return make_eager_scheduler(std::move(context));
  if (name == "round-robin") return make_round_robin_scheduler(std::move(context));
  if (name == "offload") return make_offload_scheduler(std::move(context));
  if (name == "locality") return make_locality_scheduler(std::move(context));
  if (name == "model") return make_model_scheduler(std::move(context), false);
  if (name == "model-ready") return make_model_scheduler(std::move(context), true);
  throw UsageError(fmt::format(
      "unknown scheduler '{}'; schedulers: model, model-ready, eager, round-robin, offload, "
      "locality",
      name));
}

bool measures_device_tasks(std::string_view name) {
  return name == "model" || name == "model-ready";
}

Scheduler::Scheduler(SchedulerContext context) : context_(std::move(context)) {
  for (const auto& w : context_.workers) present_ |= bit(w.kind);
  per_worker_.resize(context_.workers.size());
  for (int m = 0; m < kMasks; ++m) {
    int takers = 0, taker = -1;
    for (std::size_t w = 0; w < context_.workers.size(); ++w)
      if (m & bit(context_.workers[w].kind)) {
        ++takers;
        taker = static_cast<int>(w);
      }
    sole_device_[m] = takers == 1 && context_.workers[taker].space > 0 ? taker : -1;
  }
}

KindMask Scheduler::runnable(const device::CodeletImpl& c) const {
  KindMask m = 0;
  for (std::size_t k = 0; k < device::kDeviceKinds; ++k)
    if (c.run[k]) m |= 1u << k;
  return m & present_;
}

bool Scheduler::offloaded(const device::CodeletImpl& codelet) const {
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

void Scheduler::check(const device::CodeletImpl& codelet) const {
  if (runnable(codelet) == 0) {
    std::string kinds;
    for (const auto& w : context_.workers)
      if (kinds.find(std::string(to_string(w.kind))) == std::string::npos)
        kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(w.kind));
    throw UsageError(fmt::format(
        "codelet '{}' has no implementation for the runtime's workers ({})", codelet.name, kinds));
  }
  if (keeps_offloaded_on_devices() && offloaded(codelet) &&
      (runnable(codelet) & device_kinds()) == 0)
    throw UsageError(fmt::format(
        "codelet '{}' is offloaded but has no implementation for the runtime's devices{}",
        codelet.name, device_kinds() == 0 ? " (there are none)" : ""));
  check_modelled(codelet);
}

// On a simulated platform a task placed on a worker whose model lacks its codelet would fail in
// the middle of the run; say so at the first submit instead, once per codelet.
void Scheduler::check_modelled(const device::CodeletImpl& codelet) const {
  const perfmodel::PerfModels* models = context_.models;
  if (!models || !models->oracle().task) return;
  std::lock_guard lock(modelled_mutex_);
  if (modelled_.count(codelet.name)) return;
  KindMask can = runnable(codelet);
  if (keeps_offloaded_on_devices() && offloaded(codelet)) can &= device_kinds();
  perfmodel::TaskShape shape;
  shape.flops = codelet.flops ? 1 : 0;
  shape.bytes = 1;
  std::string missing;
  std::set<std::string, std::less<>> asked;
  for (const auto& w : context_.workers) {
    if (!(can & bit(w.kind)) || !asked.insert(w.device).second) continue;
    if (models->oracle().task(codelet.name, w.device, shape) < 0)
      missing += (missing.empty() ? "" : ", ") + (w.space == 0 ? std::string("host") : w.device);
  }
  if (!missing.empty())
    throw UsageError(fmt::format(
        "codelet '{}': the simulated platform has no model for it on {} (give its rate in the "
        "platform file's gflops, or a fallback gbs; docs/simulation.md)",
        codelet.name, missing));
  modelled_.insert(codelet.name);
}

Placement Scheduler::push(Task* task) { return enqueue(task, decide(*task)); }

Placement Scheduler::decide(Task& task) {
  Placement p = place(task);
  if (p.worker < 0 && p.mask < kMasks && sole_device_[p.mask] >= 0) p = {sole_device_[p.mask], 0};
  return p;
}

Placement Scheduler::enqueue(Task* task, Placement p) {
  task->seq = ++seq_;
  if (p.worker >= 0) {
    per_worker_[p.worker].push(task);
    note_queued(*task, p.worker, +1);
  } else
    pools_[p.mask].push(task);
  ++ready_;
  return p;
}

void Scheduler::note_queued(const Task& task, int worker, int delta) const {
  int space = context_.workers[worker].space;
  if (space == 0 || !context_.coherence) return;  // CPU workers: nothing to evict
  for (const auto& a : task.accesses)
    if (reads(a.mode)) data::CoherenceEngine::note_queued(*a.data, space, delta);
}

void Scheduler::OwnQueue::push(Task* t) {
  heap.push_back(t);
  std::push_heap(heap.begin(), heap.end(), Later());
}

Task* Scheduler::OwnQueue::take(std::size_t i) {
  if (i == 0) {  // the usual case: O(log n), as the priority queue it replaces
    std::pop_heap(heap.begin(), heap.end(), Later());
    Task* t = heap.back();
    heap.pop_back();
    return t;
  }
  Task* t = heap[i];
  heap[i] = heap.back();
  heap.pop_back();
  std::make_heap(heap.begin(), heap.end(), Later());  // model-ready only, among the first 16
  return t;
}

void Scheduler::next_in_queue(int worker, std::size_t count, std::vector<Task*>& out) {
  out.clear();
  const std::vector<Task*>& heap = per_worker_[worker].heap;
  if (heap.empty() || count == 0) return;
  // In a heap the children of entry i are entries 2i + 1 and 2i + 2, each given out after it (the
  // standard's definition of a heap), so the next task in order is always the first of the
  // children of those already taken: a small heap of these candidates yields them in order.
  auto later = [&heap](std::size_t a, std::size_t b) { return Later()(heap[a], heap[b]); };
  frontier_.assign(1, 0);
  while (!frontier_.empty() && out.size() < count) {
    std::pop_heap(frontier_.begin(), frontier_.end(), later);
    const std::size_t i = frontier_.back();
    frontier_.pop_back();
    out.push_back(heap[i]);
    for (std::size_t child = 2 * i + 1; child <= 2 * i + 2 && child < heap.size(); ++child) {
      frontier_.push_back(child);
      std::push_heap(frontier_.begin(), frontier_.end(), later);
    }
  }
}

Task* Scheduler::pick_local(int worker) {
  OwnQueue& q = per_worker_[worker];
  if (!prefers_local_data() || q.size() < 2) return q.take(0);
  // The first entries of the heap hold the highest priorities; among them, the task whose data is
  // most in place, so that its copies do not hold up the lane (StarPU's dmdar).
  constexpr std::size_t kLook = 16;
  int space = context_.workers[worker].space;
  std::size_t best = 0;
  std::size_t best_missing = bytes_missing(*q.heap[0], space);
  for (std::size_t i = 1; i < std::min(kLook, q.size()) && best_missing > 0; ++i) {
    std::size_t missing = bytes_missing(*q.heap[i], space);
    if (missing < best_missing) {
      best = i;
      best_missing = missing;
    }
  }
  return q.take(best);
}

Task* Scheduler::pop(int worker) {
  if (ready_ == 0) return nullptr;
  KindMask mine = bit(context_.workers[worker].kind);
  Queue* best = nullptr;
  bool own = !per_worker_[worker].empty();
  Task* own_top = own ? per_worker_[worker].top() : nullptr;
  for (int m = 1; m < kMasks; ++m) {
    if (!(m & mine) || pools_[m].empty()) continue;
    Task* current = best ? best->top() : own_top;
    if (!current || Later()(current, pools_[m].top())) best = &pools_[m];
  }
  Task* t = nullptr;
  if (best) {
    t = best->top();
    best->pop();
  } else if (own) {
    t = pick_local(worker);
    note_queued(*t, worker, -1);
  } else {
    return nullptr;
  }
  --ready_;
  on_start(*t, worker);
  return t;
}

}  // namespace conveyor::runtime::scheduler
