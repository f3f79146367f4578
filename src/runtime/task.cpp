#include "runtime/task.hpp"

namespace conveyor::runtime {

const std::string& Task::label() const {
  static const std::string kAcquire = "acquire";
  if (!name.empty()) return name;
  return codelet ? codelet->name : kAcquire;
}

void Task::reset() {
  id = 0;
  kind = Kind::Compute;
  codelet.reset();
  name.clear();
  priority = 0;
  accesses.clear();
  args_bytes = 0;
  pending = 0;
  successors.clear();
  cancelled = false;
  granted = false;
  seq = 0;
  worker = -1;
  exec_seconds = -1;
  predicted_seconds = -1;
  predicted_copy_seconds = 0;
  calibration = false;
  prefetch_seen = false;
  ahead = Ahead::None;
  ahead_worker = -1;
  lane_of = -1;
  on_lane = 0;
  lane = -1;
}

Task* TaskPool::get() {
  if (free_.empty()) {
    all_.push_back(std::make_unique<Task>());
    // Room for the common case up front, so that a recycled task rarely grows.
    all_.back()->accesses.reserve(4);
    all_.back()->successors.reserve(4);
    return all_.back().get();
  }
  Task* t = free_.back();
  free_.pop_back();
  return t;
}

void TaskPool::put(Task* task) {
  task->reset();
  free_.push_back(task);
}

TaskPool::~TaskPool() = default;

}  // namespace conveyor::runtime
