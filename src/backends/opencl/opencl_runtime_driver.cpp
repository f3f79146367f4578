// The task runtime's driver for an OpenCL device: replicas are cl_mem buffers; the lane is one
// in-order queue (copies and kernels of the tasks in flight); completion comes from an event
// callback on a marker, so no thread polls; copies out for other threads go through a second
// queue, and write-backs of evicted replicas through a third, beside the kernels (nothing on the
// lane uses an evicted replica any more, see DeviceDriver::enqueue_write_back).
#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "device/driver.hpp"
#include "opencl_device.hpp"

namespace conveyor::backend::opencl {
namespace {

using device::HostRegion;
using device::TimedOp;

class OpenclDriver final : public device::DeviceDriver {
 public:
  OpenclDriver(OpenCLDevice& device, const device::DriverConfig& config)
      : context_(device.context()),
        id_(device.info().id),
        config_(config),
        lane_(context_->make_queue()),
        out_(context_->make_queue()),
        back_(context_->make_queue()) {
    if (config_.trace || config_.time_tasks) calibrate_clock();
    round_trip_s_ = probe_round_trip();
  }

  ~OpenclDriver() override {
    clFinish(lane_.get());
    clFinish(out_.get());
    clFinish(back_.get());
    std::lock_guard lock(mutex_);
    for (cl_event e : retired_) clReleaseEvent(e);
    for (auto& op : timed_) clReleaseEvent(op.event);
  }

  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  const std::string& id() const override { return id_; }
  std::uint64_t memory_bytes() const override { return context_->facts().global_mem_bytes; }
  double completion_seconds() const override { return round_trip_s_; }

  void* allocate(std::size_t bytes) override {
    if (bytes > context_->facts().max_alloc_bytes)
      throw DeviceError(fmt::format("{}: {} bytes exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE ({})", id_,
                                    bytes, context_->facts().max_alloc_bytes));
    return CONVEYOR_CL_CREATE(
        clCreateBuffer(context_->get(), CL_MEM_READ_WRITE, bytes, nullptr, &cl_err));
  }
  void deallocate(void* block) noexcept override { clReleaseMemObject(static_cast<cl_mem>(block)); }

  void enqueue_h2d(void* dst, const HostRegion& src) override {
    cl_event* ev = timing(TimedOp::Kind::H2D, {});
    auto mem = static_cast<cl_mem>(dst);
    if (src.contiguous()) {
      CONVEYOR_CL_CHECK(clEnqueueWriteBuffer(lane_.get(), mem, CL_FALSE, 0, src.bytes(), src.ptr, 0,
                                             nullptr, ev));
    } else {
      std::size_t origin[3] = {0, 0, 0};
      std::size_t region[3] = {src.width, src.height, 1};
      CONVEYOR_CL_CHECK(clEnqueueWriteBufferRect(lane_.get(), mem, CL_FALSE, origin, origin, region,
                                                 src.width, 0, src.pitch, 0, src.ptr, 0, nullptr,
                                                 ev));
    }
  }

  void enqueue_d2h(const HostRegion& dst, const void* src) override {
    cl_event* ev = timing(TimedOp::Kind::D2H, {});
    read(lane_.get(), dst, src, CL_FALSE, ev);
  }

  void enqueue_write_back(const HostRegion& dst, const void* src, device::DoneCallback done,
                          void* user) override {
    cl_event landed = nullptr;
    read(back_.get(), dst, src, CL_FALSE, &landed);
    when_complete(landed, done, user);
    CONVEYOR_CL_CHECK(clFlush(back_.get()));
  }

  void launch(const device::CodeletImpl& codelet, TaskContext& ctx) override {
    device::TaskContextAccess::set_stream(ctx, lane_.get(), kernel_for(codelet));
    const bool timed = keeps(TimedOp::Kind::Task);
    cl_event before = nullptr;
    if (timed) CONVEYOR_CL_CHECK(clEnqueueMarkerWithWaitList(lane_.get(), 0, nullptr, &before));
    try {
      codelet.fn(DeviceKind::OpenCL)(ctx);
    } catch (...) {
      if (before) clReleaseEvent(before);
      throw;
    }
    if (timed) {
      cl_event* after = timing(TimedOp::Kind::Task, codelet.name, ctx.task_id());
      CONVEYOR_CL_CHECK(clEnqueueMarkerWithWaitList(lane_.get(), 0, nullptr, after));
      timed_.back().start_event = before;
    }
  }

  void notify(device::DoneCallback done, void* user) override {
    cl_event marker = nullptr;
    CONVEYOR_CL_CHECK(clEnqueueMarkerWithWaitList(lane_.get(), 0, nullptr, &marker));
    when_complete(marker, done, user);
    CONVEYOR_CL_CHECK(clFlush(lane_.get()));
  }

  // Calls `done` when `event` completes (PoCL: maybe at once); the event is released later.
  void when_complete(cl_event event, device::DoneCallback done, void* user) {
    Pending* p = nullptr;
    {
      std::lock_guard lock(mutex_);
      for (cl_event e : retired_) clReleaseEvent(e);
      retired_.clear();
      if (free_.empty()) {
        pending_.push_back(std::make_unique<Pending>());
        free_.push_back(pending_.back().get());
      }
      p = free_.back();
      free_.pop_back();
    }
    p->driver = this;
    p->done = done;
    p->user = user;
    p->event = event;
    CONVEYOR_CL_CHECK(clSetEventCallback(event, CL_COMPLETE, &OpenclDriver::on_complete, p));
  }

  void drain_trace(std::vector<TimedOp>& out) override {
    while (!timed_.empty()) {
      Timed& op = timed_.front();
      cl_int status = CL_QUEUED;
      clGetEventInfo(op.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
      if (status > CL_COMPLETE) break;  // in order: later ones are not done either
      if (status == CL_COMPLETE) {
        cl_event first = op.start_event ? op.start_event : op.event;
        cl_ulong start = 0, end = 0;
        cl_profiling_info start_what =
            op.start_event ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START;
        if (clGetEventProfilingInfo(first, start_what, sizeof start, &start, nullptr) ==
                CL_SUCCESS &&
            clGetEventProfilingInfo(op.event, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                    nullptr) == CL_SUCCESS)
          out.push_back(
              {op.kind, op.name, op.task, start * 1e-3 + offset_us_, end * 1e-3 + offset_us_});
      }
      clReleaseEvent(op.event);
      if (op.start_event) clReleaseEvent(op.start_event);
      timed_.pop_front();
    }
  }

  void copy_to_host(const HostRegion& dst, const void* src) override {
    read(out_.get(), dst, src, CL_TRUE, nullptr);
  }

 private:
  struct Pending {
    OpenclDriver* driver = nullptr;
    device::DoneCallback done = nullptr;
    void* user = nullptr;
    cl_event event = nullptr;
  };
  struct Timed {
    TimedOp::Kind kind;
    std::string name;
    TaskId task = 0;
    cl_event event = nullptr;
    cl_event start_event = nullptr;  // tasks: marker before the launch
  };

  static void CL_CALLBACK on_complete(cl_event, cl_int status, void* user) {
    auto* p = static_cast<Pending*>(user);
    OpenclDriver* self = p->driver;
    std::string error;
    if (status < 0)
      error = fmt::format("{}: a command of the task failed: {} ({})", self->id_,
                          cl_error_name(status), status);
    device::DoneCallback done = p->done;
    void* target = p->user;
    {
      std::lock_guard lock(self->mutex_);
      self->retired_.push_back(p->event);  // released later, outside the driver's callback
      self->free_.push_back(p);
    }
    done(target, error.empty() ? nullptr : error.c_str());
  }

  static void read(cl_command_queue queue, const HostRegion& dst, const void* src, cl_bool block,
                   cl_event* ev) {
    auto mem = static_cast<cl_mem>(const_cast<void*>(src));
    if (dst.contiguous()) {
      CONVEYOR_CL_CHECK(
          clEnqueueReadBuffer(queue, mem, block, 0, dst.bytes(), dst.ptr, 0, nullptr, ev));
    } else {
      std::size_t origin[3] = {0, 0, 0};
      std::size_t region[3] = {dst.width, dst.height, 1};
      CONVEYOR_CL_CHECK(clEnqueueReadBufferRect(queue, mem, block, origin, origin, region,
                                                dst.width, 0, dst.pitch, 0, dst.ptr, 0, nullptr,
                                                ev));
    }
  }

  bool keeps(TimedOp::Kind kind) const {
    return config_.trace || (config_.time_tasks && kind == TimedOp::Kind::Task);
  }
  // Where the next lane operation should put its event when it is timed, else nullptr.
  cl_event* timing(TimedOp::Kind kind, std::string_view name, TaskId task = 0) {
    if (!keeps(kind)) return nullptr;
    timed_.push_back({kind, std::string(name), task, nullptr, nullptr});
    return &timed_.back().event;
  }

  void calibrate_clock() {
    cl_event marker = nullptr;
    CONVEYOR_CL_CHECK(clEnqueueMarkerWithWaitList(lane_.get(), 0, nullptr, &marker));
    CONVEYOR_CL_CHECK(clFinish(lane_.get()));
    double host_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - config_.epoch)
            .count();
    cl_ulong end = 0;
    if (clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
        CL_SUCCESS)
      offset_us_ = host_us - end * 1e-3;
    clReleaseEvent(marker);
  }

  void* kernel_for(const device::CodeletImpl& codelet) {
    const OpenclProgram& program = codelet.program;
    if (program.kernel.empty()) return nullptr;
    // Keyed by address, so a codelet made where a destroyed one lived must not get its kernel:
    // the same source built with other options (another precision) is another kernel.
    auto it = kernels_.find(&codelet);
    if (it != kernels_.end() && it->second.source == program.source &&
        it->second.name == program.kernel && it->second.options == program.options)
      return it->second.kernel.get();
    Built built{program.source, program.kernel, program.options, {}, {}};
    if (!program.binary.empty()) {
      cl_device_id device = context_->facts().device;
      const unsigned char* bytes = program.binary.data();
      std::size_t length = program.binary.size();
      cl_int binary_status = CL_SUCCESS;
      built.program.reset(CONVEYOR_CL_CREATE(clCreateProgramWithBinary(
          context_->get(), 1, &device, &length, &bytes, &binary_status, &cl_err)));
      check_cl(binary_status, "clCreateProgramWithBinary (binary status)", __FILE__, __LINE__);
      CONVEYOR_CL_CHECK(clBuildProgram(built.program.get(), 1, &device, program.options.c_str(),
                                       nullptr, nullptr));
      built.kernel.reset(
          CONVEYOR_CL_CREATE(clCreateKernel(built.program.get(), program.kernel.c_str(), &cl_err)));
    } else {
      built.kernel = context_->kernel(program.source, program.kernel.c_str(), program.options);
    }
    auto& slot = kernels_[&codelet];
    slot = std::move(built);
    return slot.kernel.get();
  }

  struct Built {
    std::string source;
    std::string name;
    std::string options;
    Program program;  // binaries only; source programs live in the DeviceContext cache
    Kernel kernel;
  };

  std::shared_ptr<DeviceContext> context_;
  std::string id_;
  device::DriverConfig config_;
  Queue lane_;
  Queue out_;
  Queue back_;  // write-backs
  double offset_us_ = 0;
  double round_trip_s_ = -1;
  std::map<const device::CodeletImpl*, Built> kernels_;  // driver thread only
  std::deque<Timed> timed_;                              // driver thread only

  std::mutex mutex_;  // guards the callback records
  std::vector<std::unique_ptr<Pending>> pending_;
  std::vector<Pending*> free_;
  std::vector<cl_event> retired_;
};

}  // namespace

std::unique_ptr<device::DeviceDriver> OpenCLDevice::make_driver(
    const device::DriverConfig& config) {
  return std::make_unique<OpenclDriver>(*this, config);
}

}  // namespace conveyor::backend::opencl
