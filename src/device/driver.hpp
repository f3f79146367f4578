#pragma once
// What the task runtime needs from a device backend: memory, one in-order lane of asynchronous
// work (copies and kernels) driven by the device's driver thread, a completion notification that
// does not poll, and a synchronous copy out for other threads. Backends implement it under
// src/backends/<name>/ and hand it out through DriverSource::make_driver; shared code never names a
// backend. This layer sits below src/data and src/runtime, which both use it; it includes
// neither.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/codelet.hpp"
#include "conveyor/device.hpp"
#include "device/codelet_impl.hpp"

namespace conveyor::device {

class VirtualClock;
class Trace;

/// What a simulated platform knows without measuring: the modelled time of a task on one of its
/// processors and of an uncontended copy on its links. The model schedulers predict from it
/// instead of learning histories (runtime::perfmodel::ModelStore), so that the scheduler sees the
/// machine the simulation runs.
class ModelledCosts {
 public:
  /// Seconds of `codelet` on `device` ("cpu": one host core) for a task of `flops` (its cost
  /// function; < 0 when it has none) on `bytes` of buffers; < 0 when the platform has no model.
  virtual double task_seconds(const std::string& codelet, const std::string& device, double flops,
                              std::uint64_t bytes) const = 0;
  /// Seconds of one copy of `bytes` from `from` to `to` ("host" or a device id) issued now:
  /// the route's backlog (its links' copies already under way or queued), then latency + bytes /
  /// bandwidth in that direction; < 0 when there is no route.
  virtual double copy_seconds(const std::string& from, const std::string& to,
                              std::uint64_t bytes) const = 0;

 protected:
  ~ModelledCosts() = default;
};

struct DriverConfig {
  bool trace = false;       ///< keep timings of every lane operation (copies and tasks)
  bool time_tasks = false;  ///< keep timings of tasks (for performance models), even without trace
  std::chrono::steady_clock::time_point epoch{};  ///< time zero of the trace
};

/// Where a replica lives in host memory: `height` runs of `width` bytes, `pitch` bytes apart (a
/// column-major matrix: width = rows * elem_size, height = cols, pitch = ld * elem_size).
struct HostRegion {
  char* ptr = nullptr;
  std::size_t width = 0;
  std::size_t height = 1;
  std::size_t pitch = 0;
  std::size_t bytes() const { return width * height; }
  bool contiguous() const { return height <= 1 || pitch == width; }
};

/// A finished lane operation, for the trace (microseconds since DriverConfig::epoch).
struct TimedOp {
  enum class Kind { Task, H2D, D2H, D2D };
  Kind kind = Kind::Task;
  std::string name;  ///< codelet name for tasks
  TaskId task = 0;   ///< tasks: TaskContext::task_id() of the launch
  double start_us = 0;
  double end_us = 0;
};

/// Called once everything enqueued before the notify has finished; `error` is null on success.
using DoneCallback = void (*)(void* user, const char* error);

class DeviceDriver {
 public:
  virtual ~DeviceDriver() = default;

  virtual DeviceKind kind() const = 0;
  virtual const std::string& id() const = 0;
  /// Memory the device has for replicas, in bytes.
  virtual std::uint64_t memory_bytes() const = 0;

  // Memory; any thread. allocate throws DeviceError when the device refuses. deallocate may be
  // called while work queued on the lane still uses the block (a prefetch whose replica is evicted
  // before its copy lands): the block must stay valid until that work is done, as cudaFree (which
  // waits for the device) and clReleaseMemObject (which defers the release) guarantee.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* block) noexcept = 0;

  /// Page-locks [ptr, ptr + bytes) so that copies to and from it run at link speed; returns
  /// whether it did (then unpin_host(ptr) must follow). Any thread; false where it would not help.
  virtual bool pin_host(void* /*ptr*/, std::size_t /*bytes*/) { return false; }
  virtual void unpin_host(void* /*ptr*/) noexcept {}

  // The lane: only the device's driver thread calls these. Work runs in the order enqueued: the
  // runtime enqueues a task behind predecessors still on the lane (RuntimeOptions::run_ahead)
  // and relies on that order alone, so a driver that moves copies in to an engine of its own must
  // make the kernels after them wait for them (CUDA: an event and cudaStreamWaitEvent). What
  // matters is the order of the operations that use the same block (a device may run the others
  // side by side); a notify waits for everything before it.
  virtual void enqueue_h2d(void* dst, const HostRegion& src) = 0;
  virtual void enqueue_d2h(const HostRegion& dst, const void* src) = 0;
  /// A copy home of a replica that no work still on the lane uses (the runtime writes back only
  /// unpinned replicas: the tasks that wrote them have completed), so it needs no ordering with the
  /// lane: drivers with a copy engine of their own run it there, beside the kernels, rather than
  /// behind them. Calls `done(user, error)` once it has landed (from any thread, maybe at once).
  /// The default runs it on the lane.
  virtual void enqueue_write_back(const HostRegion& dst, const void* src, DoneCallback done,
                                  void* user);
  /// Whether enqueue_peer can copy straight from `other`'s memory.
  virtual bool can_peer_from(const DeviceDriver& /*other*/) const { return false; }
  /// Whether a kernel here can read `other`'s memory in place (DeviceCopy::PeerDirect). Real CUDA
  /// devices would need cudaDeviceEnablePeerAccess first; no real driver offers it yet.
  virtual bool can_read_peer(const DeviceDriver& /*other*/) const { return false; }
  virtual void enqueue_peer(void* dst, const DeviceDriver& src_driver, const void* src,
                            std::size_t bytes);
  /// Fills the stream/queue/kernel fields of `ctx` (device::TaskContextAccess::set_stream) and
  /// calls the codelet's implementation for this kind, which enqueues the work. The task's timing
  /// (with DriverConfig::trace or time_tasks) is a TimedOp named after the codelet, tagged with
  /// ctx.task_id().
  virtual void launch(const device::CodeletImpl& codelet, TaskContext& ctx) = 0;
  /// Arranges for `done(user, error)` to be called (from any thread) when all work enqueued so far
  /// has finished. Never blocks on the device.
  virtual void notify(DoneCallback done, void* user) = 0;
  /// Appends the timings of finished lane operations (DriverConfig::trace / time_tasks), in lane
  /// order.
  virtual void drain_trace(std::vector<TimedOp>& out) = 0;

  /// A simulated device's clock: the runtime then runs in virtual time (all its devices must share
  /// it). Null for real devices.
  virtual VirtualClock* virtual_clock() { return nullptr; }
  /// A simulated device's platform models (null for real devices). Its copies and kernels share
  /// one in-order lane, so a model scheduler counts a task's copies in the device's load too.
  virtual const ModelledCosts* modelled_costs() const { return nullptr; }
  /// Seconds from the end of the work enqueued on the device to the runtime learning of it (the
  /// host's wake-up on the completion): the round trip that releases a dependent task, which
  /// run-ahead hides. < 0 when not known; a simulated platform's complete_us; the CUDA and OpenCL
  /// drivers measure theirs when they open (probe_round_trip).
  virtual double completion_seconds() const { return -1; }
  /// The run's trace (RuntimeOptions::trace): a simulated platform adds its link tracks there.
  virtual void attach_trace(Trace* /*trace*/) {}

  /// Copies device memory to the host and waits; any thread (a lane of its own).
  virtual void copy_to_host(const HostRegion& dst, const void* src) = 0;

  // Data whose home is this device (Runtime::register_device_bytes): memory the user allocated
  // here, used in place as the data's replica on this device.
  /// Checks that [ptr, ptr + bytes) is this device's memory and returns the block that the lane's
  /// operations take for it (the block is never deallocated: it is the user's). Throws UsageError
  /// saying why it cannot; the default refuses (a device whose blocks are not raw pointers, as
  /// OpenCL's cl_mem, or a simulated one). Any thread.
  virtual void* adopt_external(void* ptr, std::size_t bytes);
  /// Copies host memory into a device block and waits; any thread (the lane of copy_to_host). Used
  /// to bring a device-homed data's latest contents home (wait_all, unregister) when they are on
  /// the host; only drivers whose adopt_external accepts memory need it (the default throws).
  virtual void copy_from_host(void* dst, const HostRegion& src);
  /// Copies `height` runs of `width` bytes from `src` (runs `src_pitch` bytes apart) to `dst`
  /// (`dst_pitch` apart), both this device's memory, and waits; any thread (the lane of
  /// copy_to_host). A strided device home (Runtime::register_device_matrix_bytes with ld > rows)
  /// is filled from the user's region with it at registration and copied back with it; the
  /// default refuses with UsageError, as adopt_external does.
  virtual void copy_device_2d(void* dst, std::size_t dst_pitch, const void* src,
                              std::size_t src_pitch, std::size_t width, std::size_t height);

 protected:
  /// The round trip of this driver's completions, measured: the median over `samples` of the time
  /// from an empty notify() on the idle lane to a host thread waking on its callback (what a
  /// dependent task waits for between its predecessor's end and the host releasing it, less the
  /// runtime's own handling). For a driver's constructor, once its lane takes work; -1 when a
  /// notify fails or does not come back within a second.
  double probe_round_trip(int samples = 7);
};

/// Implemented by the Device classes of backends that have a runtime driver (beside Device).
class DriverSource {
 public:
  virtual std::unique_ptr<DeviceDriver> make_driver(const DriverConfig& config) = 0;

 protected:
  ~DriverSource() = default;
};

/// The runtime's driver for `device`; throws UsageError when its backend has none (the CPU is
/// driven by the runtime's own workers).
std::unique_ptr<DeviceDriver> make_driver(Device& device, const DriverConfig& config);

}  // namespace conveyor::device
