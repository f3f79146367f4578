// model / model-ready: each ready task goes where it is predicted to finish first (HEFT's earliest
// finish time, as StarPU's dmda): over the CPUs' pool and every device that can run it, the time
// that worker frees up (from the predictions of the work already given to it), plus the copies
// its inputs still need there (link model: latency + bytes / bandwidth), plus its modelled
// execution time there. Measured times (on_complete) feed the models and correct the bookkeeping.
// "model-ready" also lets each device take first, among its queued tasks, those whose data is
// already in place (dmdar).
//
// A worker's queue runs by priority, so a task waits only for the queued work of its own priority
// or higher (and the work already started): a critical-path task (potrf, the panel's trsm, which
// the apps submit at the highest priorities) sees the fastest worker free soon even when its
// queue holds a long backlog of updates, and stays there. Counting the whole backlog instead sent
// such tasks to a CPU core, 100x slower, and the whole factorisation waited for them (the H200
// node twin, n = 16384, tile 2048: a syrk of 0.17 s on a core made it 2.3x slower than the GPU
// alone).
//
// Calibration: while a (codelet, device) has fewer than PerfModels::kMinSamples measurements (or,
// with RuntimeOptions::calibrate, while the task's own footprint has fewer than kCalibrateSamples),
// tasks go there to be measured, a few at a time. A device that computes on the host's own cores
// (PoCL) competes with the CPU workers: it frees up no earlier than the CPUs do, so it is only
// worth using for codelets it runs faster than a core.
//
// On a simulated platform the models have an oracle (PerfModels::set_oracle): the platform's own
// task and link models. Then nothing is calibrated, each input still missing is priced on the
// route it would take (from the host, from a peer, or staged through the host), and a task's
// copies count in its worker's load: a simulated device's copies and kernels share its lane.
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conveyor/models.hpp"
#include "device/codelet_impl.hpp"
#include "runtime/perfmodel/models.hpp"
#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

using perfmodel::PerfModels;
using perfmodel::TaskShape;

constexpr std::uint64_t kCalibrateSamples = 5;
// Calibration tasks outstanding per device at once, so that one slow device does not receive a
// whole wave of tasks before its first measurement says it is slow.
constexpr int kCalibrationInFlight = 1;
// A device whose measurements (two at least) are this many times slower than the best alternative
// is not measured further: more samples would only cost time (a PoCL gemm at 100x a core's).
constexpr double kHopeless = 2.0;

class ModelScheduler final : public Scheduler {
 public:
  ModelScheduler(SchedulerContext context, bool ready_first)
      : Scheduler(std::move(context)), ready_first_(ready_first) {
    const auto& workers = this->context().workers;
    loads_.resize(workers.size());
    predicted_busy_.resize(workers.size());
    for (const auto& w : workers) {
      cpus_ += w.space == 0;
      if (w.space >= static_cast<int>(space_names_.size())) space_names_.resize(w.space + 1);
      if (w.space > 0) space_names_[w.space] = w.device;
    }
    if (space_names_.empty()) space_names_.resize(1);
    space_names_[0] = "host";
    epoch_ = std::chrono::steady_clock::now();
    if (!this->context().models) {
      own_models_ = std::make_unique<PerfModels>();
      models_ = own_models_.get();
    } else {
      models_ = this->context().models;
    }
  }

  void on_complete(const Task& task) override {
    int w = task.worker;
    const WorkerDesc& desc = context().workers[w];
    double predicted = std::max(task.predicted_seconds, 0.0) + task.predicted_copy_seconds;
    if (task.exec_seconds >= 0) {
      TaskShape s = shape(task);
      models_->record(task.codelet->name, desc.device, s, task.exec_seconds);
      if (!task.calibration && task.predicted_seconds > 0)
        models_->record_error(task.codelet->name, desc.device, task.predicted_seconds,
                              task.exec_seconds);
    }
    if (task.calibration) --calibrating_[desc.device];
    predicted_busy_[w] += std::max(task.predicted_seconds, 0.0);
    Load& load = loads_[w];
    load.inflight = std::max(0.0, load.inflight - predicted);
    load.anchor = now();  // the next task in its lane starts no earlier than this
    if (--load.running <= 0) {
      load.running = 0;
      load.inflight = 0;
    }
  }

  void on_cancel(const Task& task, int worker) override {
    double predicted = std::max(task.predicted_seconds, 0.0) + task.predicted_copy_seconds;
    Load& mine = loads_[worker];  // taken, as on_start counted it, and not run
    mine.inflight = std::max(0.0, mine.inflight - predicted);
    if (--mine.running <= 0) {
      mine.running = 0;
      mine.inflight = 0;
    }
  }

  // A decision for a task not ready yet that the runtime does not act on: its load, and its
  // calibration turn, go; it is placed anew once ready.
  void withdraw(Task& task, Placement p) override {
    const auto& workers = context().workers;
    const bool on_device = p.worker >= 0 && workers[p.worker].space > 0;
    double predicted = std::max(task.predicted_seconds, 0.0) + task.predicted_copy_seconds;
    (on_device ? loads_[p.worker] : cpu_pool_).dequeue(task.priority, predicted);
    if (task.calibration) {
      auto cpu = std::find_if(workers.begin(), workers.end(),
                              [](const WorkerDesc& w) { return w.space == 0; });
      const std::string& device = on_device ? workers[p.worker].device : cpu->device;
      --calibrating_[device];
      --calibration_tasks_;
      task.calibration = false;
    }
    task.predicted_seconds = -1;
    task.predicted_copy_seconds = 0;
  }

  double started_seconds(int worker) const override { return loads_[worker].started(now()); }

  double predicted_busy(int worker) const override { return predicted_busy_[worker]; }
  std::uint64_t calibration_tasks() const override { return calibration_tasks_; }
  void reset_stats() override {
    std::fill(predicted_busy_.begin(), predicted_busy_.end(), 0.0);
    calibration_tasks_ = 0;
  }

 protected:
  bool prefers_local_data() const override { return ready_first_; }
  bool keeps_offloaded_on_devices() const override { return true; }

  void on_start(const Task& task, int worker) override {
    double predicted = std::max(task.predicted_seconds, 0.0) + task.predicted_copy_seconds;
    Load& load = context().workers[worker].space == 0 ? cpu_pool_ : loads_[worker];
    load.dequeue(task.priority, predicted);
    Load& mine = loads_[worker];
    if (mine.running++ == 0) mine.anchor = now();
    mine.inflight += predicted;
  }

  Placement place(Task& task) override {
    KindMask can = runnable(*task.codelet);
    if (!context().offload.empty()) {  // an explicit placement limits where tasks may go
      if (offloaded(*task.codelet))
        can &= device_kinds();
      else if (can & kCpuMask)
        can = kCpuMask;
    }
    const auto& workers = context().workers;
    const std::string& codelet = task.codelet->name;
    TaskShape s = shape(task);
    double t = now();

    // Candidates: the CPUs' pool (represented by its first worker) and each device worker.
    candidates_.clear();
    for (std::size_t w = 0; w < workers.size(); ++w) {
      if (!(can & bit(workers[w].kind))) continue;
      if (workers[w].space == 0 && !candidates_.empty() && workers[candidates_[0]].space == 0)
        continue;
      if (workers[w].space == 0)
        candidates_.insert(candidates_.begin(), static_cast<int>(w));
      else
        candidates_.push_back(static_cast<int>(w));
    }
    if (candidates_.empty()) return {-1, can};

    if (int w = calibration_target(codelet, s); w >= 0) {
      task.calibration = true;
      ++calibration_tasks_;
      ++calibrating_[workers[w].device];
      auto p = models_->predict(codelet, workers[w].device, s);
      return commit(task, w, p.known() ? p.seconds : prior(s, workers[w].kind), 0);
    }

    // A device not measured yet is left out while others are: its prior (nominal flop/s) could
    // draw a wave of tasks before its calibration tasks report. The CPUs are not left out (they
    // may be waiting for their own first measurement while a device has one): they get their
    // prior, or without a cost function the best known prediction, a neutral guess.
    predictions_.clear();
    bool any_measured = false;
    double best_known = std::numeric_limits<double>::max();
    for (int w : candidates_) {
      predictions_.push_back(models_->predict(codelet, workers[w].device, s));
      if (predictions_.back().known()) {
        any_measured = true;
        best_known = std::min(best_known, predictions_.back().seconds);
      }
    }
    double cpu_free = t + backlog_cpu(task.priority) / std::max(cpus_, 1);
    int best = -1;
    double best_finish = std::numeric_limits<double>::max(), best_exec = 0, best_copies = 0;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      int w = candidates_[i];
      const WorkerDesc& d = workers[w];
      const auto& p = predictions_[i];
      if (any_measured && !p.known() && d.space != 0) continue;
      double exec = p.known() ? p.seconds : prior(s, d.kind);
      if (!p.known() && exec < 0 && any_measured) exec = best_known;
      if (exec < 0) continue;  // nothing known and no cost function
      double free = d.space == 0 ? cpu_free : t + backlog_device(w, task.priority);
      if (d.shares_host_cores) free = std::max(free, cpu_free);
      Copies copies = transfer_seconds(task, d);
      // The inputs arrive once the link has carried what is ahead of them (copies.arrive), and the
      // worker starts the task once its queue ahead is done and its own copies (copies.own) are
      // in: the link's backlog and the queue's overlap rather than add up.
      double finish = std::max(free + copies.own, t + copies.arrive) + exec;
      if (d.space == 0) finish = handed_back(task, t, finish);
      if (finish < best_finish) {
        best = w;
        best_finish = finish;
        best_exec = exec;
        best_copies = copies.own;
      }
    }
    if (best < 0) return {-1, can};  // no model anywhere yet: like eager
    // Only a simulated lane is known to serialize copies with kernels; a real CUDA device copies
    // in while the previous kernel runs, and its load stays the kernels'. The load counts the
    // task's own copies, not the link's backlog ahead of them (which every later task would
    // count again: the H200 twin's GPU looked 0.18 s busy with 0.08 s of work queued).
    return commit(task, best, best_exec, models_->oracle().copy ? best_copies : 0);
  }

 private:
  struct Load {
    // Predicted seconds placed here and not started, by priority (the queue runs highest first).
    std::map<int, double, std::greater<>> queued;
    double inflight = 0;  // predicted seconds started and not finished
    double anchor = 0;    // when its running work started, or its last completion
    int running = 0;
    void enqueue(int priority, double seconds) { queued[priority] += seconds; }
    void dequeue(int priority, double seconds) {
      auto it = queued.find(priority);
      if (it == queued.end()) return;
      it->second -= seconds;
      if (it->second <= 1e-12) queued.erase(it);
    }
    // Queued work that runs before a task of `priority` (ties run in submission order: before).
    double queued_ahead(int priority) const {
      double total = 0;
      for (auto it = queued.begin(); it != queued.end() && it->first >= priority; ++it)
        total += it->second;
      return total;
    }
    double started(double now) const { return std::max(0.0, inflight - (now - anchor)); }
  };

  double now() const {
    if (context().now) return context().now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_).count();
  }

  // Work given to the CPUs and not done yet that a task of `priority` waits for, in CPU-seconds.
  double backlog_cpu(int priority) const {
    double t = now();
    double total = cpu_pool_.queued_ahead(priority);
    const auto& workers = context().workers;
    for (std::size_t w = 0; w < workers.size(); ++w)
      if (workers[w].space == 0) total += loads_[w].started(t);
    return total;
  }
  double backlog_device(int w, int priority) const {
    return loads_[w].started(now()) + loads_[w].queued_ahead(priority);
  }

  // When a host task's result is of use: data it writes that a device holds (its next reader
  // is there, most likely) goes back once the host task ends, and no sooner than that device's
  // lane has done the work queued ahead: the host's help pays only where the device would have
  // reached the task later than the result comes back. Without this the H200 twin's cores took
  // stencil sweeps of tiles the GPU held while the link into the GPU was the run's bottleneck,
  // and every such tile crossed it twice more (--devices all 0.9 % slower than the GPU alone).
  // `t`: now, as place() read it.
  double handed_back(const Task& task, double t, double finish) const {
    auto* coherence = context().coherence;
    if (!coherence) return finish;
    const auto& workers = context().workers;
    double back = 0;
    for (const auto& a : task.accesses) {
      if (!writes(a.mode)) continue;
      for (std::size_t w = 0; w < workers.size(); ++w) {
        int s = workers[w].space;
        if (s == 0 || !coherence->valid_in(*a.data, s)) continue;
        finish = std::max(finish, t + backlog_device(static_cast<int>(w), task.priority));
        back += own_copy(s, a.data->bytes());
        break;
      }
    }
    return finish + back;
  }

  // `copies`: predicted copy time that occupies the worker (0 but on a simulated platform).
  Placement commit(Task& task, int w, double exec, double copies) {
    task.predicted_seconds = exec;
    task.predicted_copy_seconds = copies;
    if (context().workers[w].space == 0) {
      cpu_pool_.enqueue(task.priority, std::max(exec, 0.0) + copies);
      return {-1, kCpuMask};
    }
    loads_[w].enqueue(task.priority, std::max(exec, 0.0) + copies);
    return {w, 0};
  }

  // The device a calibration task should go to, or -1: the candidate with the fewest samples
  // among those still below the threshold and without too many calibration tasks out.
  int calibration_target(const std::string& codelet, const TaskShape& s) {
    const auto& workers = context().workers;
    if (candidates_.size() < 2) return -1;  // nothing to choose between
    int target = -1;
    std::uint64_t fewest = std::numeric_limits<std::uint64_t>::max();
    for (int w : candidates_) {
      const std::string& device = workers[w].device;
      std::uint64_t n = context().calibrate ? models_->samples(codelet, device, s.footprint)
                                            : models_->samples(codelet, device);
      std::uint64_t need = context().calibrate ? kCalibrateSamples : PerfModels::kMinSamples;
      // No more out at once than the samples still needed: 16 cores must not all start a
      // 0.4 s CPU gemm to measure what a GPU does in 0.5 ms.
      int limit = workers[w].space == 0 ? std::max(cpus_, 1) : kCalibrationInFlight;
      if (n >= need) continue;
      if (models_->predict(codelet, device, s).source == perfmodel::Source::Modelled) continue;
      limit = std::min<int>(limit, static_cast<int>(need - n));
      if (calibrating_[device] >= limit) continue;
      // A device needs two samples: its first task often pays one-time costs (PoCL: 643 ms for
      // a 64-tile gemm that then runs in 1.2 ms), and a GPU must not be written off for them.
      // A CPU function has no such first-use cost beyond noise.
      std::uint64_t judged = workers[w].space == 0 ? 1 : 2;
      if (!context().calibrate && n >= judged && hopeless(codelet, s, w)) continue;
      // Ties go to a device: the CPUs get measured anyway, and a device measured on the first
      // (often small, warm-up) tasks costs least.
      if (n < fewest || (n == fewest && workers[w].space != 0)) {
        fewest = n;
        target = w;
      }
    }
    return target;
  }

  bool hopeless(const std::string& codelet, const TaskShape& s, int w) const {
    const auto& workers = context().workers;
    auto mine = models_->predict(codelet, workers[w].device, s);
    if (!mine.known()) return false;
    for (int other : candidates_) {
      if (other == w) continue;
      auto p = models_->predict(codelet, workers[other].device, s);
      // Another worker still unmeasured is compared by its prior (cost function at a nominal rate).
      double t = p.known() ? p.seconds : prior(s, workers[other].kind);
      if (t > 0 && mine.seconds > kHopeless * t) return true;
    }
    return false;
  }

  static double prior(const TaskShape& s, DeviceKind kind) {
    // Before any measurement, a codelet with a cost function is priced at a nominal rate per kind
    // (flop/s). Only a prior: calibration replaces it after a few tasks.
    if (s.flops > 0) return s.flops / WorkerModels::nominal_flops(kind);
    return -1;
  }

  // Seconds of the copies a task still needs on a worker: `arrive` from now until they are in
  // (a simulated route's backlog included), `own` the copies themselves.
  struct Copies {
    double arrive = 0;
    double own = 0;
  };

  Copies transfer_seconds(const Task& task, const WorkerDesc& d) const {
    if (models_->oracle().copy) return modelled_transfer_seconds(task, d.space);
    std::size_t missing = bytes_missing(task, d.space);
    if (missing == 0) return {};
    const auto& links = models_->links();
    if (d.space != 0) {
      auto it = links.find(d.device);
      double t = it != links.end() ? it->second.seconds(missing) : 0.0;
      return {t, t};
    }
    // Into the host from whichever device holds the data: the slowest link, to be safe.
    double worst = 0;
    for (const auto& [id, link] : links) worst = std::max(worst, link.seconds(missing));
    return {worst, worst};
  }

  // A copy of `bytes` over the link of the device of `space` (> 0), without any backlog.
  double own_copy(int space, std::size_t bytes) const {
    auto it = models_->links().find(space_names_[space]);
    return it != models_->links().end() ? it->second.seconds(bytes) : 0.0;
  }

  // Each input still missing in `space`, priced on its cheapest route from a valid replica: the
  // host's when it has one (the coherence engine copies from the host first), else a device's,
  // directly (peer copies) or through the host.
  Copies modelled_transfer_seconds(const Task& task, int space) const {
    auto* coherence = context().coherence;
    if (!coherence) return {};
    const auto& copy = models_->oracle().copy;
    const std::string& to = space_names_[space];
    const bool peers = coherence->device_copy() != DeviceCopy::HostStaged;
    Copies total;
    for (const auto& a : task.accesses) {
      std::size_t bytes = coherence->bytes_missing(*a.data, space, a.mode);
      if (bytes == 0) continue;
      if (space != 0 && coherence->valid_in(*a.data, 0)) {
        total.arrive += std::max(copy("host", to, bytes), 0.0);
        total.own += own_copy(space, bytes);
        continue;
      }
      double best = -1;
      int best_from = 0;
      for (int from = 1; from < static_cast<int>(space_names_.size()); ++from) {
        if (from == space || space_names_[from].empty() || !coherence->valid_in(*a.data, from))
          continue;
        const std::string& src = space_names_[from];
        double t = space == 0 || peers ? copy(src, to, bytes)
                                       : copy(src, "host", bytes) + copy("host", to, bytes);
        if (t >= 0 && (best < 0 || t < best)) {
          best = t;
          best_from = from;
        }
      }
      if (best <= 0) continue;
      total.arrive += best;
      total.own += space == 0 ? own_copy(best_from, bytes)
                              : own_copy(space, bytes) + (peers ? 0 : own_copy(best_from, bytes));
    }
    return total;
  }

  TaskShape shape(const Task& task) {
    sizes_.clear();
    auto& buffers = device::TaskContextAccess::buffers(shape_ctx_);
    buffers.resize(task.accesses.size());
    TaskShape s;
    for (std::size_t i = 0; i < task.accesses.size(); ++i) {
      const auto& d = *task.accesses[i].data;
      sizes_.push_back(d.bytes());
      s.bytes += d.bytes();
      buffers[i] = {nullptr, d.elem_size, d.rows, d.cols, d.rows};
    }
    s.footprint = perfmodel::footprint(sizes_);
    if (task.codelet->flops) {
      device::TaskContextAccess::set_task(shape_ctx_, DeviceKind::Cpu, "", -1, task.label(),
                                          task.id, {task.args.data(), task.args_bytes});
      try {
        s.flops = task.codelet->flops(shape_ctx_);
      } catch (...) {
        s.flops = 0;  // a cost function that fails only costs the prior
      }
    }
    return s;
  }

  bool ready_first_;
  PerfModels* models_ = nullptr;
  std::unique_ptr<PerfModels> own_models_;  // when the runtime keeps none (tests)
  int cpus_ = 0;
  std::chrono::steady_clock::time_point epoch_;
  Load cpu_pool_;            // queued: placed in the CPUs' pool, not started
  std::vector<Load> loads_;  // per worker; CPU workers use inflight/anchor for their task
  std::vector<double> predicted_busy_;
  std::map<std::string, int, std::less<>> calibrating_;  // calibration tasks out, per device
  std::uint64_t calibration_tasks_ = 0;
  std::vector<std::string> space_names_;  // "host", then the device of each space
  std::vector<int> candidates_;
  std::vector<perfmodel::Prediction> predictions_;
  std::vector<std::size_t> sizes_;
  TaskContext shape_ctx_;
};

}  // namespace

std::unique_ptr<Scheduler> make_model_scheduler(SchedulerContext context, bool ready_first) {
  return std::make_unique<ModelScheduler>(std::move(context), ready_first);
}

}  // namespace conveyor::runtime::scheduler
