#include "runtime/runtime_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
#include "core/thread_team.hpp"
#include "device/simulated/simulated_device.hpp"

namespace conveyor {

using runtime::Task;
using runtime::TaskAccess;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<std::unique_ptr<device::DeviceDriver>> open_devices(
    const std::vector<std::string>& ids, const device::DriverConfig& config) {
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  for (const auto& id : expand_devices(ids))
    drivers.push_back(device::make_driver(*find_device(id), config));
  return drivers;
}

std::string resolve_scheduler(const RuntimeOptions& o, bool extra_devices) {
  if (o.scheduler != "auto") return o.scheduler;
  // A simulated node of CPUs only (a cluster's CPU nodes) has no device to offload to.
  bool devices = !o.devices.empty() || extra_devices ||
                 (!o.platform.empty() && platform_device_count(o.platform) > 0);
  return !devices ? "eager" : o.offload.empty() ? "model" : "offload";
}

}  // namespace

std::vector<std::string> expand_devices(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  auto add = [&](const std::string& id) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  for (const auto& id : ids) {
    if (id == "all") {
      for (const auto& d : all_devices())
        if (d->info().kind != DeviceKind::Cpu) add(d->info().id);
    } else if (id == "cpu" || id == "cpu:0") {
      throw UsageError(
          "'cpu' is not a runtime device: the CPUs are the runtime's workers "
          "(RuntimeOptions::cpus)");
    } else {
      add(id);
    }
  }
  return out;
}

// RuntimeOptions::max_submitted: given, else from the environment, else from memory.
std::uint64_t resolve_max_submitted(std::uint64_t given) {
  if (given > 0) return given;
  if (const char* env = std::getenv("CONVEYOR_MAX_SUBMITTED"); env && *env) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (*end != '\0' || v == 0)
      throw UsageError(
          fmt::format("CONVEYOR_MAX_SUBMITTED must be a positive number of tasks, got '{}'", env));
    return v;
  }
  return std::max<std::uint64_t>(100'000, host_topology().memory_bytes / (256 * 1024));
}

// The runtime's own threads (workers and drivers): a task that submits tasks must not wait for
// room that only its own end would make.
thread_local const void* runtime_thread_of = nullptr;

std::string resolved_scheduler(const RuntimeOptions& options) {
  return resolve_scheduler(options, false);
}

Runtime::Impl::Impl(RuntimeOptions options,
                    std::vector<std::unique_ptr<device::DeviceDriver>> extra_drivers)
    : options_(std::move(options)), epoch_(std::chrono::steady_clock::now()) {
  if (options_.cpus < -1)
    throw UsageError(fmt::format("cpus must be >= -1, got {}", options_.cpus));
  if (options_.device_tasks_in_flight < 1)
    throw UsageError(fmt::format("device_tasks_in_flight must be >= 1, got {}",
                                 options_.device_tasks_in_flight));
  options_.scheduler = resolve_scheduler(options_, !extra_drivers.empty());
  options_.max_submitted = resolve_max_submitted(options_.max_submitted);
  resume_at_ = options_.max_submitted - options_.max_submitted / 16;
  // A simulated platform's virtual times are not this machine's: kept out of its models file.
  if (!options_.platform.empty() && options_.perf_models.empty()) options_.perf_models = "none";
  const int platform_cores = open_drivers(std::move(extra_drivers));
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
  device::DriverConfig config{options_.trace, runtime::measures_device_tasks(options_.scheduler),
                              epoch_};
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
      placement = ThreadTeam::placement(cpus, ThreadBinding::Compact);
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
               w->driver->id(), perfmodel::shares_host_cores(w->driver->id())};
    for (int k = 0; k < options_.device_tasks_in_flight; ++k) {
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
  runtime::SchedulerContext context;
  for (const auto& w : workers_) context.workers.push_back(w->desc);
  for (const auto& name : options_.offload) context.offload.insert(name);
  context.coherence = coherence_.get();
  if (runtime::measures_device_tasks(options_.scheduler)) {  // the model schedulers
    models_ = std::make_unique<perfmodel::ModelStore>(options_.perf_models, options_.calibration,
                                                      raw_drivers());
    context.models = &models_->models();
    context.calibrate = options_.calibrate;
    context.now = [this] { return now_s(); };
  }
  scheduler_ = runtime::make_scheduler(options_.scheduler, std::move(context));
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

// ---- data -------------------------------------------------------------------------------------

Data Runtime::Impl::register_data(void* ptr, std::size_t elem_size, std::size_t rows,
                                  std::size_t cols, std::size_t ld, std::string name,
                                  detail::DataState* parent) {
  std::string label = name.empty() ? "data" : fmt::format("'{}'", name);
  if (!ptr && rows * cols > 0) throw UsageError(fmt::format("register {}: null pointer", label));
  if (elem_size == 0) throw UsageError(fmt::format("register {}: element size 0", label));
  if (rows == 0 || cols == 0)
    throw UsageError(fmt::format("register {}: empty ({} x {})", label, rows, cols));
  if (ld < rows)
    throw UsageError(fmt::format("register {}: leading dimension {} < rows {}", label, ld, rows));
  auto state = std::make_shared<detail::DataState>();
  state->owner = this;
  state->elem_size = elem_size;
  state->rows = rows;
  state->cols = cols;
  state->ld = ld;
  state->host = static_cast<char*>(ptr);
  state->name = std::move(name);
  state->parent = parent;
  coherence_->init(*state);
  {
    std::lock_guard lock(registry_mutex_);
    state->registry_slot = registry_.size();
    registry_.push_back(state);
  }
  return detail::DataAccess::make(std::move(state));
}

bool Runtime::Impl::pin_host(void* ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) throw UsageError("pin_host: null pointer or 0 bytes");
  std::lock_guard lock(registry_mutex_);
  if (pinned_.count(ptr)) throw UsageError("pin_host: this memory is pinned already");
  for (auto& driver : drivers_)
    if (driver->pin_host(ptr, bytes)) {
      pinned_[ptr] = driver.get();
      return true;
    }
  return false;
}

void Runtime::Impl::unpin_host(void* ptr) {
  std::lock_guard lock(registry_mutex_);
  auto it = pinned_.find(ptr);
  if (it == pinned_.end()) throw UsageError("unpin_host: this memory was not pinned by pin_host");
  it->second->unpin_host(ptr);
  pinned_.erase(it);
}

std::vector<std::shared_ptr<detail::DataState>> Runtime::Impl::registered() const {
  std::lock_guard lock(registry_mutex_);
  return registry_;
}

detail::DataState& Runtime::Impl::check_data(const Data& data, std::string_view use,
                                             std::string_view task) const {
  // The message is built only on failure: submit checks every access of every task.
  auto where = [&] { return task.empty() ? std::string(use) : fmt::format("task '{}'", task); };
  detail::DataState* d = detail::DataAccess::state(data);
  if (!d) throw UsageError(fmt::format("{}: empty Data handle (never registered)", where()));
  if (d->owner != this)
    throw UsageError(fmt::format("{}: {} belongs to another runtime", where(), d->describe()));
  if (!d->registered.load(std::memory_order_acquire))
    throw UsageError(fmt::format("{}: {} used after unregister", where(), d->describe()));
  return *d;
}

TileGrid Runtime::Impl::partition(const Data& matrix, std::size_t tile_rows,
                                  std::size_t tile_cols) {
  detail::DataState& m = check_data(matrix, "partition");
  if (m.parent) throw UsageError(fmt::format("partition: {} is itself a tile", m.describe()));
  if (tile_rows == 0 || tile_cols == 0 || m.rows % tile_rows != 0 || m.cols % tile_cols != 0)
    throw UsageError(fmt::format("partition: tiles of {}x{} do not divide {} evenly", tile_rows,
                                 tile_cols, m.describe()));
  {
    std::lock_guard lock(mutex_);
    if (m.partitioned)
      throw UsageError(fmt::format("partition: {} is already partitioned", m.describe()));
  }
  {
    Task* access = acquire(matrix, Access::ReadWrite);  // waits for its tasks
    try {
      coherence_->drop_replicas(m);
    } catch (...) {
      release(access);
      throw;
    }
    {
      std::lock_guard lock(mutex_);
      m.partitioned = true;
    }
    release(access);
  }
  TileGrid grid;
  grid.matrix = matrix;
  grid.tile_rows = tile_rows;
  grid.tile_cols = tile_cols;
  grid.grid_rows = m.rows / tile_rows;
  grid.grid_cols = m.cols / tile_cols;
  grid.tiles.reserve(grid.grid_rows * grid.grid_cols);
  for (std::size_t j = 0; j < grid.grid_cols; ++j)
    for (std::size_t i = 0; i < grid.grid_rows; ++i) {
      char* p = m.host + (i * tile_rows + j * tile_cols * m.ld) * m.elem_size;
      std::string name = fmt::format("{}[{},{}]", m.name.empty() ? "tile" : m.name, i, j);
      grid.tiles.push_back(
          register_data(p, m.elem_size, tile_rows, tile_cols, m.ld, std::move(name), &m));
    }
  return grid;
}

void Runtime::Impl::unpartition(TileGrid& grid) {
  detail::DataState& m = check_data(grid.matrix, "unpartition");
  for (auto& tile : grid.tiles)
    if (tile.registered()) unregister(tile);
  std::lock_guard lock(mutex_);
  m.partitioned = false;
}

void Runtime::Impl::unregister(Data& data) {
  detail::DataState& d = check_data(data, "unregister");
  {
    std::lock_guard lock(mutex_);
    if (d.partitioned)
      throw UsageError(
          fmt::format("unregister: {} is partitioned; unpartition it first", d.describe()));
  }
  Task* access = acquire(data, Access::ReadWrite);
  try {
    coherence_->drop_replicas(d);
    if (clock_) clock_->settle();
  } catch (...) {
    release(access);
    throw;
  }
  d.registered.store(false, std::memory_order_release);
  {
    std::lock_guard lock(registry_mutex_);
    std::size_t slot = d.registry_slot;
    std::swap(registry_[slot], registry_.back());
    registry_[slot]->registry_slot = slot;
    registry_.pop_back();
  }
  release(access);
}

// ---- tasks ------------------------------------------------------------------------------------

TaskId Runtime::Impl::submit(const Codelet& codelet, std::span<const DataAccess> accesses,
                             int priority, std::string_view name, std::span<const std::byte> args) {
  const auto& impl = detail::CodeletAccess::impl(codelet);
  std::string_view label = name.empty() ? std::string_view(impl->name) : name;
  scheduler_->check(*impl);
  if (args.size() > runtime::kMaxArgsBytes)
    throw UsageError(fmt::format("task '{}': args of {} bytes (at most {})", label, args.size(),
                                 runtime::kMaxArgsBytes));
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    detail::DataState& d = check_data(accesses[i].data, {}, label);
    for (std::size_t j = 0; j < i; ++j)
      if (detail::DataAccess::state(accesses[j].data) == &d)
        throw UsageError(fmt::format("task '{}': {} given twice", label, d.describe()));
  }

  std::unique_lock lock(mutex_);
  if (submitted_ - finished_ >= options_.max_submitted) wait_for_room(lock);
  for (const auto& a : accesses)
    if (detail::DataAccess::state(a.data)->partitioned)
      throw UsageError(
          fmt::format("task '{}': {} is partitioned into tiles; use its tiles or "
                      "unpartition it",
                      label, detail::DataAccess::state(a.data)->describe()));
  Task* t = pool_.get();
  t->id = ++next_id_;
  t->codelet = impl;
  t->name.assign(name);
  t->priority = priority;
  for (const auto& a : accesses) t->accesses.push_back({detail::DataAccess::state(a.data), a.mode});
  if (!args.empty()) std::memcpy(t->args.data(), args.data(), args.size());
  t->args_bytes = args.size();
  ++submitted_;
  for (const auto& a : t->accesses)
    if (a.data->poisoned) t->cancelled = true;
  add_dependencies(t);
  if (t->pending == 0) make_ready(t);
  return t->id;
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
  };
  for (const auto& a : t->accesses) {
    detail::DataState& d = *a.data;
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

void Runtime::Impl::wake(const runtime::Placement& p) {
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
    if (w->idle && (p.mask & runtime::bit(w->desc.kind))) {
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
    for (const auto& a : task->accesses) {
      detail::DataState& d = *a.data;
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
      if (--s->pending == 0) {
        if (s->kind == Task::Kind::Acquire) {
          s->granted = true;
          notify_user();
        } else if (s->cancelled) {
          ++cancelled_;
          ready_stack_.push_back(s);
        } else {
          wake(scheduler_->push(s));
        }
      }
    }
    if (task->kind == Task::Kind::Compute) {
      if (task->worker >= 0) scheduler_->on_complete(*task);
      ++finished_;
      pool_.put(task);
    }
    failed = false;  // only the first task failed; the others are cancelled
  }
  if (finished_ == submitted_ || (submit_waiting_ && submitted_ - finished_ <= resume_at_))
    notify_user();
}

void Runtime::Impl::record_failure(const Task* t, std::string_view where, std::string_view what) {
  ++failed_;
  if (first_error_.empty())
    first_error_ = fmt::format("task '{}' (codelet '{}', #{}) failed on {}: {}", t->label(),
                               t->codelet ? t->codelet->name : "-", t->id, where, what);
}

std::string Runtime::Impl::write_back_all() {
  // Every data that can come home does, even when another cannot (a failed device).
  std::string first;
  int failures = 0;
  for (auto& d : registered()) try {
      coherence_->fetch_to_host(*d);
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

Task* Runtime::Impl::acquire(const Data& data, Access mode) {
  detail::DataState& d = check_data(data, "acquire");
  Task* t = nullptr;
  {
    std::unique_lock lock(mutex_);
    if (d.partitioned)
      throw UsageError(fmt::format("acquire: {} is partitioned; acquire its tiles", d.describe()));
    t = pool_.get();
    t->kind = Task::Kind::Acquire;
    t->id = ++next_id_;
    t->accesses.push_back({&d, mode});
    ++open_acquires_;
    add_dependencies(t);
    if (t->pending == 0) t->granted = true;
    wait_user(lock, [&] { return t->granted; });
  }
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

// ---- workers ----------------------------------------------------------------------------------

void Runtime::Impl::cpu_loop(Worker& w) {
  runtime_thread_of = this;
  if (w.cpu >= 0) pin_current_thread(w.cpu);
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
  using detail::TaskContextAccess;
  auto start = std::chrono::steady_clock::now();
  double trace_start = 0;
  t->worker = w.index;
  TaskContext& ctx = w.context;
  auto& buffers = TaskContextAccess::buffers(ctx);
  buffers.resize(t->accesses.size());
  try {
    for (std::size_t i = 0; i < t->accesses.size(); ++i) {
      detail::DataState& d = *t->accesses[i].data;
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
  if (detail::TaskContextAccess::deferred(ctx)) return;
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

void Runtime::Impl::on_device_done(void* user, const char* error) {
  auto* slot = static_cast<Slot*>(user);
  if (error) slot->error = error;
  Impl* self = slot->impl;
  std::lock_guard lock(self->mutex_);
  slot->worker->completed.push_back(slot);
  self->rouse(slot->worker->asleep);
  slot->worker->cv.notify_one();
}

void Runtime::Impl::device_loop(Worker& w) {
  runtime_thread_of = this;
  const int capacity = options_.device_tasks_in_flight;
  std::vector<Slot*> done;
  std::vector<data::CoherenceEngine::WriteBack*> early;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!w.completed.empty()) {
      done.swap(w.completed);
      lock.unlock();
      for (Slot* s : done) finish_device(w, s);
      collect_timings(w, done);
      lock.lock();
      early.clear();
      if (options_.early_write_back) begin_early_write_backs(w, done, lock, early);
      for (Slot* s : done) {
        bool ok = s->error.empty();
        if (!ok) record_failure(s->task, w.driver->id(), s->error);
        complete(s->task, !ok);
        s->task = nullptr;
        s->error.clear();
        w.free_slots.push_back(s);
        ++w.tasks;
        ++tasks_run_;
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
    if (!t && w.in_flight < capacity) {
      t = scheduler_->pop(w.index);
      if (t && w.in_flight++ == 0) w.busy_since = now_s();
    }
    if (t) {
      std::uint64_t events = w.memory_events;
      lock.unlock();
      Launch launched = launch_device(w, t);
      lock.lock();
      w.waiting = launched == Launch::Blocked ? t : nullptr;
      if (launched == Launch::Failed) {
        complete(t, true);
        if (--w.in_flight == 0) w.busy_seconds += now_s() - w.busy_since;
      }
      if (launched != Launch::Blocked) continue;
      if (!w.completed.empty() || w.memory_events != events) continue;  // room came meanwhile
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
    for (detail::DataState* d : w.prefetch_list)
      if (!coherence_->prefetch(*d, w.desc.space)) break;  // no free room: the rest load at launch
  } catch (const std::exception&) {
    // A copy that could not be enqueued: the task's launch copies (and reports) it.
  }
  lock.lock();
  return looked;
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
      const detail::DataState& d = *a.data;
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
  for (detail::DataState* d : w.early_list)
    if (auto* wb = coherence_->begin_early_write_back(*d, w.desc.space)) out.push_back(wb);
  lock.lock();
}

Runtime::Impl::Launch Runtime::Impl::launch_device(Worker& w, Task* t) {
  const int space = w.desc.space;
  TaskContext& ctx = w.context;
  auto& buffers = detail::TaskContextAccess::buffers(ctx);
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
    detail::TaskContextAccess::set_task(ctx, w.desc.kind, w.driver->id(), w.index, t->label(),
                                        t->id, {t->args.data(), t->args_bytes});
    w.driver->launch(*t->codelet, ctx);
    for (const auto& a : t->accesses) coherence_->finish_on_device(*a.data, space, a.mode);
    Slot* slot = nullptr;
    {
      std::lock_guard lock(mutex_);
      slot = w.free_slots.back();
      w.free_slots.pop_back();
    }
    slot->task = t;
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
  // a failed copy may have filled part of an input: copied again when next needed.
  if (!slot->error.empty())
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

// ---- time and the virtual clock's thread accounting ------------------------------------------

double Runtime::Impl::now_s() const { return clock_ ? clock_->now_s() : seconds_since(epoch_); }

void Runtime::Impl::doze(bool& asleep) {
  if (asleep) return;
  asleep = true;
  if (clock_) clock_->running(-1);
}

void Runtime::Impl::rouse(bool& asleep) {
  if (!asleep) return;
  asleep = false;
  if (clock_) clock_->wake(&asleep);
}

void Runtime::Impl::sleep_on(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                             bool& asleep) {
  doze(asleep);
  cv.wait(lock);
  // In virtual time only a rouse wakes a thread (a spurious wake-up waits on), and it runs on
  // its turn.
  while (clock_ && asleep) cv.wait(lock);
  rouse(asleep);
  take_turn(lock, asleep);
}

void Runtime::Impl::take_turn(std::unique_lock<std::mutex>& lock, const bool& asleep) {
  if (!clock_) return;
  lock.unlock();  // the thread whose turn it is may need the lock
  clock_->take_turn(&asleep);
  lock.lock();
}

template <typename Pred>
void Runtime::Impl::wait_user(std::unique_lock<std::mutex>& lock, Pred ready) {
  bool asleep = false;
  while (!ready()) {
    if (!asleep) user_sleepers_.push_back(&asleep);
    doze(asleep);
    done_cv_.wait(lock);
    if (asleep) {  // woken by no one (spurious): stays registered
      continue;
    }
    take_turn(lock, asleep);
  }
  if (asleep) {
    user_sleepers_.erase(std::find(user_sleepers_.begin(), user_sleepers_.end(), &asleep));
    rouse(asleep);
    take_turn(lock, asleep);
  }
}

void Runtime::Impl::notify_user() {
  for (bool* asleep : user_sleepers_) rouse(*asleep);
  user_sleepers_.clear();
  done_cv_.notify_all();
}

// ---- reporting --------------------------------------------------------------------------------

RuntimeStats Runtime::Impl::stats() const {
  RuntimeStats s;
  transfer_stats_->fill(s);
  coherence_->fill(s);
  std::lock_guard lock(mutex_);
  s.tasks = tasks_run_;
  s.max_submitted = options_.max_submitted;
  s.submit_waits = submit_waits_;
  for (const auto& w : workers_)
    s.workers.push_back(
        {w->desc.name, w->tasks, w->busy_seconds, scheduler_->predicted_busy(w->index)});
  s.scheduler = options_.scheduler;
  s.calibration_tasks = scheduler_->calibration_tasks();
  return s;
}

void Runtime::Impl::reset_stats() {
  transfer_stats_->reset();
  coherence_->reset_peaks();
  std::lock_guard lock(mutex_);
  tasks_run_ = 0;
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
