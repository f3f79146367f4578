// The public Runtime, Codelet, Data and HostAccess: thin forwarding to the insides.
#include "conveyor/runtime.hpp"

#include <fmt/format.h>

#include <utility>

#include "conveyor/error.hpp"
#include "data/data_state.hpp"
#include "device/codelet_impl.hpp"
#include "runtime/runtime_impl.hpp"

namespace conveyor {

std::string_view to_string(Access mode) {
  switch (mode) {
    case Access::Read:
      return "read";
    case Access::Write:
      return "write";
    case Access::ReadWrite:
      return "readwrite";
  }
  return "unknown";
}

std::string_view to_string(Coherence c) { return c == Coherence::Naive ? "naive" : "coherent"; }
std::string_view to_string(DeviceCopy c) {
  return c == DeviceCopy::HostStaged ? "host-staged"
         : c == DeviceCopy::PeerCopy ? "peer-copy"
                                     : "peer-direct";
}

Coherence parse_coherence(std::string_view text) {
  if (text == "naive") return Coherence::Naive;
  if (text == "coherent") return Coherence::Coherent;
  throw UsageError(fmt::format("unknown coherence policy '{}'; policies: naive, coherent", text));
}

DeviceCopy parse_device_copy(std::string_view text) {
  if (text == "host-staged") return DeviceCopy::HostStaged;
  if (text == "peer-copy") return DeviceCopy::PeerCopy;
  if (text == "peer-direct") return DeviceCopy::PeerDirect;
  throw UsageError(fmt::format(
      "unknown device-to-device copy '{}'; choices: host-staged, peer-copy, peer-direct", text));
}

// ---- Codelet ----------------------------------------------------------------------------------

Codelet::Codelet(std::string name) : impl_(std::make_shared<device::CodeletImpl>()) {
  if (name.empty()) throw UsageError("a codelet needs a name");
  impl_->name = std::move(name);
}
Codelet& Codelet::cpu(TaskFunction fn) {
  impl_->run[device::index(DeviceKind::Cpu)] = std::move(fn);
  return *this;
}
Codelet& Codelet::cuda(TaskFunction launch) {
  impl_->run[device::index(DeviceKind::Cuda)] = std::move(launch);
  return *this;
}
Codelet& Codelet::opencl(OpenclProgram program, TaskFunction launch) {
  if (!program.source.empty() && !program.binary.empty())
    throw UsageError(
        fmt::format("codelet '{}': give OpenCL source or a binary, not both", impl_->name));
  if (!launch) throw UsageError(fmt::format("codelet '{}': OpenCL launcher missing", impl_->name));
  impl_->program = std::move(program);
  impl_->run[device::index(DeviceKind::OpenCL)] = std::move(launch);
  return *this;
}
Codelet& Codelet::flops(FlopsFunction fn) {
  impl_->flops = std::move(fn);
  return *this;
}
const std::string& Codelet::name() const { return impl_->name; }
bool Codelet::has(DeviceKind kind) const { return impl_->has(kind); }

// ---- deferred tasks ---------------------------------------------------------------------------

Completion TaskContext::defer() const {
  if (!sink_)
    throw UsageError(fmt::format(
        "task '{}': defer() is for CPU implementations, while the task runs", task_name_));
  if (deferred_) throw UsageError(fmt::format("task '{}': defer() called twice", task_name_));
  deferred_ = true;
  sink_->deferring(task_);
  return Completion(sink_, task_);
}

Completion::Completion(Completion&& other) noexcept
    : sink_(std::exchange(other.sink_, nullptr)), task_(std::exchange(other.task_, nullptr)) {}

Completion& Completion::operator=(Completion&& other) noexcept {
  if (this != &other) {
    finish("deferred task abandoned: its Completion was replaced before done() or fail()");
    sink_ = std::exchange(other.sink_, nullptr);
    task_ = std::exchange(other.task_, nullptr);
  }
  return *this;
}

Completion::~Completion() {
  finish("deferred task abandoned: its Completion was destroyed before done() or fail()");
}

void Completion::done() {
  if (!sink_) throw UsageError("Completion::done: already finished (or empty)");
  finish(nullptr);
}

void Completion::fail(std::string_view message) {
  if (!sink_) throw UsageError("Completion::fail: already finished (or empty)");
  finish(std::string(message).c_str());
}

void Completion::finish(const char* error) noexcept {
  if (!sink_) return;
  std::exchange(sink_, nullptr)->finish_deferred(std::exchange(task_, nullptr), error);
}

// ---- Data -------------------------------------------------------------------------------------

bool Data::registered() const { return state_ && state_->registered.load(); }
std::size_t Data::elem_size() const { return state_ ? state_->elem_size : 0; }
std::size_t Data::rows() const { return state_ ? state_->rows : 0; }
std::size_t Data::cols() const { return state_ ? state_->cols : 0; }
std::size_t Data::ld() const { return state_ ? state_->ld : 0; }
std::size_t Data::bytes() const { return state_ ? state_->bytes() : 0; }
void* Data::host() const { return state_ && !state_->device_home() ? state_->host : nullptr; }
const std::string& Data::home_device() const {
  static const std::string kHost;
  return state_ ? state_->home_device : kHost;
}
const std::string& Data::name() const {
  static const std::string kNone;
  return state_ ? state_->name : kNone;
}

const Data& TileGrid::at(std::size_t i, std::size_t j) const {
  if (i >= grid_rows || j >= grid_cols)
    throw UsageError(
        fmt::format("tile ({}, {}) outside the {}x{} grid", i, j, grid_rows, grid_cols));
  return tiles[i + j * grid_rows];
}

// ---- HostAccess -------------------------------------------------------------------------------

HostAccess::HostAccess(HostAccess&& other) noexcept
    : runtime_(std::exchange(other.runtime_, nullptr)),
      ticket_(std::exchange(other.ticket_, nullptr)),
      ptr_(std::exchange(other.ptr_, nullptr)) {}

HostAccess& HostAccess::operator=(HostAccess&& other) noexcept {
  if (this != &other) {
    release();
    runtime_ = std::exchange(other.runtime_, nullptr);
    ticket_ = std::exchange(other.ticket_, nullptr);
    ptr_ = std::exchange(other.ptr_, nullptr);
  }
  return *this;
}

HostAccess::~HostAccess() { release(); }

void HostAccess::release() {
  if (runtime_ && ticket_) runtime_->impl_->release(static_cast<runtime::Task*>(ticket_));
  runtime_ = nullptr;
  ticket_ = nullptr;
  ptr_ = nullptr;
}

// ---- Runtime ----------------------------------------------------------------------------------

Runtime::Runtime(RuntimeOptions options)
    : impl_(std::make_unique<Impl>(std::move(options),
                                   std::vector<std::unique_ptr<device::DeviceDriver>>{})) {}
Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Data Runtime::register_bytes(void* ptr, std::size_t elem_size, std::size_t count,
                             std::string name) {
  return impl_->register_data(ptr, elem_size, count, 1, count, std::move(name));
}
Data Runtime::register_matrix_bytes(void* ptr, std::size_t elem_size, std::size_t rows,
                                    std::size_t cols, std::size_t ld, std::string name) {
  return impl_->register_data(ptr, elem_size, rows, cols, ld, std::move(name));
}
Data Runtime::register_device_bytes(std::string_view device, void* device_ptr,
                                    std::size_t elem_size, std::size_t count, std::string name) {
  return impl_->register_device_data(device, device_ptr, elem_size, count, 1, count,
                                     std::move(name));
}
Data Runtime::register_device_matrix_bytes(std::string_view device, void* device_ptr,
                                           std::size_t elem_size, std::size_t rows,
                                           std::size_t cols, std::size_t ld, std::string name) {
  return impl_->register_device_data(device, device_ptr, elem_size, rows, cols, ld,
                                     std::move(name));
}
TileGrid Runtime::partition(const Data& matrix, std::size_t tile_rows, std::size_t tile_cols) {
  return impl_->partition(matrix, tile_rows, tile_cols);
}
void Runtime::unpartition(TileGrid& grid) { impl_->unpartition(grid); }
void Runtime::unregister(Data& data) { impl_->unregister(data); }
void Runtime::discard(const Data& data) {
  // An acquire for writing whole: it waits for the data's users and leaves the host replica the
  // valid one (every device replica invalid) without a copy; released at once.
  const bool on_device_home = !data.home_device().empty();
  impl_->release(impl_->acquire(data, Access::Write, !on_device_home));
}
bool Runtime::pin_host(void* ptr, std::size_t bytes) { return impl_->pin_host(ptr, bytes); }
void Runtime::unpin_host(void* ptr) { impl_->unpin_host(ptr); }
TaskId Runtime::submit(const Codelet& codelet, std::span<const DataAccess> accesses, int priority,
                       std::string_view name, std::span<const std::byte> args) {
  return impl_->submit(codelet, accesses, priority, name, args);
}
void Runtime::wait_all() { impl_->wait_all(); }
void Runtime::wait(TaskId id) { impl_->wait(id, std::chrono::steady_clock::time_point::max()); }
bool Runtime::wait_for(TaskId id, std::chrono::duration<double> timeout) {
  using Clock = std::chrono::steady_clock;
  if (!(timeout.count() >= 0)) throw UsageError("wait_for: the timeout must be 0 seconds or more");
  const Clock::time_point now = Clock::now();
  const std::chrono::duration<double> room = Clock::time_point::max() - now;
  const Clock::time_point deadline =
      timeout >= room ? Clock::time_point::max()
                      : now + std::chrono::duration_cast<Clock::duration>(timeout);
  return impl_->wait(id, deadline);
}
bool Runtime::finished(TaskId id) const { return impl_->finished(id); }
HostAccess Runtime::acquire(const Data& data, Access mode) {
  HostAccess access;
  access.ticket_ = impl_->acquire(data, mode);
  access.runtime_ = this;
  // The host replica: the user's memory, or a device home's staging copy (set by the acquire).
  access.ptr_ = data::DataAccess::state(data)->host;
  return access;
}
RuntimeStats Runtime::stats() const { return impl_->stats(); }
void Runtime::reset_stats() { impl_->reset_stats(); }
double Runtime::seconds() const { return impl_->now_s(); }
std::vector<std::string> Runtime::workers() const { return impl_->workers(); }
const RuntimeOptions& Runtime::options() const { return impl_->options(); }
void Runtime::write_trace(const std::string& path) const { impl_->write_trace(path); }

}  // namespace conveyor
