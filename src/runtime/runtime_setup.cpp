// A runtime's start and end: the constructor opens the drivers (or a simulated platform), builds
// the coherence engine, the workers, the scheduler and the trace's tracks, then starts the worker
// threads; the destructor waits for the tasks, drops the device replicas and stops the threads.
#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"
#include "core/thread_team.hpp"
#include "device/simulated/simulated_device.hpp"
#include "runtime/runtime_impl_shared.hpp"

namespace conveyor {

namespace {

std::vector<std::unique_ptr<device::DeviceDriver>> open_devices(
    const std::vector<std::string>& ids, const device::DriverConfig& config) {
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  for (const auto& id : expand_devices(ids))
    drivers.push_back(device::make_driver(*find_device(id), config));
  return drivers;
}

}  // namespace

Runtime::Impl::Impl(RuntimeOptions options,
                    std::vector<std::unique_ptr<device::DeviceDriver>> extra_drivers)
    : options_(std::move(options)), epoch_(std::chrono::steady_clock::now()) {
  if (options_.cpus < -1)
    throw UsageError(fmt::format("cpus must be >= -1, got {}", options_.cpus));
  if (options_.device_tasks_in_flight < 1 &&
      options_.device_tasks_in_flight != RuntimeOptions::kInFlightAuto)
    throw UsageError(fmt::format("device_tasks_in_flight must be >= 1 (or kInFlightAuto), got {}",
                                 options_.device_tasks_in_flight));
  if (options_.run_ahead < RuntimeOptions::kRunAheadAuto)
    throw UsageError(
        fmt::format("run_ahead must be >= 0 (or kRunAheadAuto), got {}", options_.run_ahead));
  options_.scheduler = resolve_scheduler(options_, !extra_drivers.empty());
  options_.max_submitted = resolve_max_submitted(options_.max_submitted);
  resume_at_ = options_.max_submitted - options_.max_submitted / 16;
  // A simulated platform's virtual times are not this machine's: kept out of its models file.
  if (!options_.platform.empty() && options_.perf_models.empty()) options_.perf_models = "none";
  const int platform_cores = open_drivers(std::move(extra_drivers));
  // Under naive coherence every task's data goes home and comes back through the host, on copies
  // that a device's own queues do not all order (CUDA copies in on a stream of their own).
  // The default: 16 deep (measured best with one device). With several, a task bound to its
  // predecessors' device early cannot go to the device free first once it is ready, so a lane
  // takes tasks ahead only while it holds less predicted work than its device's round trip
  // (nothing on a device whose round trip is not known: docs/runtime.md, "Run-ahead").
  const bool automatic = options_.run_ahead == RuntimeOptions::kRunAheadAuto;
  run_ahead_ = options_.coherence == Coherence::Naive ? 0
               : automatic                            ? RuntimeOptions::kRunAheadDefaultDepth
                                                      : options_.run_ahead;
  lanes_bounded_ = automatic && drivers_.size() > 1;
  lanes_filled_ = options_.device_tasks_in_flight == RuntimeOptions::kInFlightAuto;
  if (lanes_filled_)
    options_.device_tasks_in_flight = drivers_.size() == 1 ? RuntimeOptions::kInFlightOneDevice
                                                           : RuntimeOptions::kInFlightSeveral;
  make_coherence();
  const int cpus = options_.cpus >= 0    ? options_.cpus
                   : platform_cores >= 0 ? platform_cores
                                         : static_cast<int>(host_topology().cores.size());
  if (cpus == 0 && drivers_.empty()) throw UsageError("a runtime needs a CPU worker or a device");
  make_workers(cpus);
  make_scheduler();
  if (trace_) name_trace_tracks();
  start_workers();
}

int Runtime::Impl::open_drivers(std::vector<std::unique_ptr<device::DeviceDriver>> extra) {
  device::DriverConfig config{
      options_.trace, runtime::scheduler::measures_device_tasks(options_.scheduler), epoch_};
  int platform_cores = -1;
  if (!options_.platform.empty()) {
    if (!options_.devices.empty())
      throw UsageError("a simulated platform brings its own devices: leave devices empty");
    auto opened = device::simulated::open_platform(options_.platform, options_.platform_devices,
                                                   options_.platform_run_kernels, config,
                                                   options_.platform_clock);
    drivers_ = std::move(opened.drivers);
    platform_cores = opened.host_cores;
    clock_ = &opened.platform->clock();  // also where the platform has no devices
    platform_ = std::move(opened.platform);
  } else {
    drivers_ = open_devices(options_.devices, config);
  }
  for (auto& d : extra) drivers_.push_back(std::move(d));
  for (auto& d : drivers_) {
    device::VirtualClock* c = d->virtual_clock();
    if (d == drivers_.front() && !platform_)
      clock_ = c;
    else if (c != clock_)
      throw UsageError(fmt::format(
          "device '{}': a simulated platform's devices cannot be mixed with other devices",
          d->id()));
  }
  if (options_.trace) trace_ = std::make_unique<device::Trace>(epoch_, clock_);
  if (trace_)
    for (auto& d : drivers_) d->attach_trace(trace_.get());
  return platform_cores;
}

std::vector<device::DeviceDriver*> Runtime::Impl::raw_drivers() const {
  std::vector<device::DeviceDriver*> raw;
  for (const auto& d : drivers_) raw.push_back(d.get());
  return raw;
}

void Runtime::Impl::make_coherence() {
  std::vector<std::string> spaces{"host"};
  for (const auto& d : drivers_) spaces.push_back(d->id());
  transfer_stats_ = std::make_unique<data::TransferStats>(spaces);
  coherence_ = std::make_unique<data::CoherenceEngine>(options_.coherence, options_.device_copy,
                                                       raw_drivers(), options_.device_memory_limit,
                                                       *transfer_stats_, trace_.get());
}

// Workers: CPUs first, then one per device.
void Runtime::Impl::make_workers(int cpus) {
  std::vector<int> placement;
  if (options_.pin && cpus > 0 && !clock_) {  // simulated cores need no pinning
    try {
      placement = core::ThreadTeam::placement(cpus, ThreadBinding::Compact);
    } catch (const UsageError&) {
      placement.clear();  // more workers than hardware threads: let the OS place them
    }
  }
  for (int i = 0; i < cpus; ++i) {
    auto w = std::make_unique<Worker>();
    w->index = static_cast<int>(workers_.size());
    w->desc = {DeviceKind::Cpu, 0, fmt::format("cpu worker {}", i)};
    w->cpu = placement.empty() ? -1 : placement[i];
    workers_.push_back(std::move(w));
  }
  for (std::size_t s = 0; s < drivers_.size(); ++s) {
    auto w = std::make_unique<Worker>();
    w->index = static_cast<int>(workers_.size());
    w->driver = drivers_[s].get();
    w->desc = {w->driver->kind(), static_cast<int>(s) + 1, w->driver->id() + " worker",
               w->driver->id(), runtime::perfmodel::shares_host_cores(w->driver->id())};
    for (int k = 0; k < most_in_flight(); ++k) {
      w->slots.push_back(std::make_unique<Slot>());
      w->slots.back()->impl = this;
      w->slots.back()->worker = w.get();
      w->free_slots.push_back(w->slots.back().get());
    }
    workers_.push_back(std::move(w));
  }
  coherence_->set_wake([this, first_device = cpus](int space) {
    std::lock_guard lock(mutex_);
    Worker& w = *workers_[first_device + space - 1];
    ++w.memory_events;
    rouse(w.asleep);
    w.cv.notify_one();
  });
}

void Runtime::Impl::make_scheduler() {
  runtime::scheduler::SchedulerContext context;
  for (const auto& w : workers_) context.workers.push_back(w->desc);
  for (const auto& name : options_.offload) context.offload.insert(name);
  context.coherence = coherence_.get();
  if (runtime::scheduler::measures_device_tasks(options_.scheduler)) {  // the model schedulers
    models_ = std::make_unique<runtime::perfmodel::ModelStore>(options_.perf_models,
                                                               options_.calibration, raw_drivers());
    context.models = &models_->models();
    context.calibrate = options_.calibrate;
    context.now = [this] { return now_s(); };
  }
  scheduler_ = runtime::scheduler::make_scheduler(options_.scheduler, std::move(context));
}

// One Chrome-trace process per memory space, one track per worker and copy direction.
void Runtime::Impl::name_trace_tracks() {
  trace_->name_process(device::kHostPid, "host");
  for (const auto& w : workers_) {
    if (!w->driver) {
      trace_->name_track(device::kHostPid, w->index + 1, w->desc.name);
      continue;
    }
    int pid = w->desc.space + 1;
    const std::string& id = w->driver->id();
    trace_->name_process(pid, id);
    trace_->name_track(pid, device::kDeviceWorkerTid, id + " worker");
    trace_->name_track(pid, device::kH2dTid, id + " h2d");
    trace_->name_track(pid, device::kD2hTid, id + " d2h");
    trace_->name_track(pid, device::kD2dTid, id + " d2d");
  }
}

void Runtime::Impl::start_workers() {
  // The user's thread and every worker run until they first wait.
  // In virtual time they take turns (VirtualClock::take_turn): this thread first, then the
  // workers in index order.
  if (clock_) {
    clock_->enter();
    for (auto& w : workers_) clock_->wake(&w->asleep);
  }
  for (auto& w : workers_) {
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw] {
      if (clock_) clock_->take_turn(&raw->asleep);
      if (raw->driver)
        device_loop(*raw);
      else
        cpu_loop(*raw);
      if (clock_) clock_->running(-1);  // its turn passes on
    });
  }
}

Runtime::Impl::~Impl() {
  {
    std::unique_lock lock(mutex_);
    wait_user(lock, [&] { return finished_ == submitted_; });
  }
  for (auto& d : registered()) {
    try {
      coherence_->drop_replicas(*d);
    } catch (const std::exception&) {
      // A destructor cannot report; wait_all() and unregister() are where errors surface.
    }
  }
  for (auto& [ptr, driver] : pinned_) driver->unpin_host(ptr);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    for (auto& w : workers_) {
      rouse(w->asleep);
      w->cv.notify_all();
    }
  }
  if (clock_) clock_->running(-1);  // the workers' turns, to end
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
  if (models_) models_->save();
  coherence_.reset();  // frees device blocks through the drivers, which go last
}

}  // namespace conveyor
