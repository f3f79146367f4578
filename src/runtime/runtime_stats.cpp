// What the runtime reports: its statistics (tasks, workers' busy time, transfers, the
// scheduler's counters), their reset, the workers' names, and the Chrome trace.
#include "conveyor/error.hpp"
#include "runtime/runtime_impl.hpp"

namespace conveyor {

RuntimeStats Runtime::Impl::stats() const {
  RuntimeStats s;
  transfer_stats_->fill(s);
  coherence_->fill(s);
  std::lock_guard lock(mutex_);
  s.tasks = tasks_run_;
  s.max_submitted = options_.max_submitted;
  s.submit_waits = submit_waits_;
  s.tasks_run_ahead = tasks_run_ahead_;
  for (const auto& w : workers_)
    s.workers.push_back({w->desc.name, w->tasks, w->busy_seconds,
                         scheduler_->predicted_busy(w->index),
                         w->driver ? w->driver->completion_seconds() : -1});
  s.scheduler = options_.scheduler;
  s.calibration_tasks = scheduler_->calibration_tasks();
  return s;
}

void Runtime::Impl::reset_stats() {
  transfer_stats_->reset();
  coherence_->reset_peaks();
  std::lock_guard lock(mutex_);
  tasks_run_ = 0;
  tasks_run_ahead_ = 0;
  scheduler_->reset_stats();
  for (auto& w : workers_) {
    w->tasks = 0;
    w->busy_seconds = 0;
  }
}

std::vector<std::string> Runtime::Impl::workers() const {
  std::vector<std::string> names;
  for (const auto& w : workers_) names.push_back(w->desc.name);
  return names;
}

void Runtime::Impl::write_trace(const std::string& path) const {
  if (!trace_) throw UsageError("write_trace: the runtime was started without trace = true");
  trace_->write(path, "runtime");
}

}  // namespace conveyor
