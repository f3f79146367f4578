#pragma once
/// A Codelet is a named computation with one implementation per kind of device: a CPU function, a
/// CUDA launcher, an OpenCL kernel. The runtime picks a worker (CPU core or device) for each task,
/// moves the task's data there, and calls the implementation for that worker's kind with a
/// TaskContext that holds the task's buffers in that memory space.
///
///   conveyor::Codelet scale("scale");
///   scale.cpu([](const conveyor::TaskContext& t) {
///     float* x = t.data<float>(0);
///     for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] *= 2;
///   });
///   scale.opencl({.source = "__kernel void scale(__global float* x) {"
///                           "  x[get_global_id(0)] *= 2; }",
///                 .kernel = "scale"},
///                [](const conveyor::TaskContext& t) {
///                  auto k = static_cast<cl_kernel>(t.opencl_kernel());
///                  cl_mem x = t.opencl_mem(0);   // needs <CL/cl.h> in the user's file only
///                  clSetKernelArg(k, 0, sizeof x, &x);
///                  std::size_t n = t.buffer(0).rows;
///                  clEnqueueNDRangeKernel(static_cast<cl_command_queue>(t.opencl_queue()), k, 1,
///                                         nullptr, &n, nullptr, 0, nullptr, nullptr);
///                });
///
/// Device implementations only enqueue work (on t.cuda_stream() or t.opencl_queue()) and return;
/// they must not wait for it. The runtime learns of completion through stream/queue events.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"

typedef struct _cl_mem* cl_mem;  // the OpenCL handle type, declared as <CL/cl.h> does

namespace conveyor {

/// One of a task's buffers as the implementation sees it, in the memory space it runs in.
struct Buffer {
  /// Host pointer (CPU), device pointer (CUDA), or cl_mem (OpenCL; use TaskContext::opencl_mem).
  void* ptr = nullptr;
  std::size_t elem_size = 1;  ///< bytes per element
  std::size_t rows = 0;       ///< elements per column (the length of a vector)
  std::size_t cols = 1;       ///< columns (1 for a vector)
  /// Leading dimension in elements: the user's ld on the CPU; rows on devices (replicas are
  /// contiguous).
  std::size_t ld = 0;
  std::size_t bytes() const { return rows * cols * elem_size; }
};

/// Identifies a submitted task (increasing in submission order, from 1).
using TaskId = std::uint64_t;

namespace detail {
/// Where a deferred task reports that it finished (the runtime).
class CompletionSink {
 public:
  /// defer() was called: the task ends later, through finish_deferred.
  virtual void deferring(void* task) noexcept = 0;
  virtual void finish_deferred(void* task, const char* error) noexcept = 0;

 protected:
  ~CompletionSink() = default;
};
}  // namespace detail

namespace device {
struct TaskContextAccess;  // the runtime and the device drivers fill TaskContext in
}  // namespace device

/// The end of a deferred task (TaskContext::defer): call done() when the work it started has
/// finished, or fail() when it failed; from any thread, once. Move-only. Destroying a Completion
/// that was neither done nor failed fails the task ("abandoned"), so a lost one cannot hang
/// wait_all.
class Completion {
 public:
  Completion() = default;
  Completion(Completion&& other) noexcept;
  Completion& operator=(Completion&& other) noexcept;
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;
  ~Completion();

  /// The task finished: the data it writes is committed and its dependants may run.
  void done();
  /// The task failed: reported by wait_all as if its function had thrown `message`.
  void fail(std::string_view message);
  /// Whether done() or fail() may still be called.
  bool pending() const { return sink_ != nullptr; }

 private:
  friend class TaskContext;
  Completion(detail::CompletionSink* sink, void* task) : sink_(sink), task_(task) {}
  void finish(const char* error) noexcept;
  detail::CompletionSink* sink_ = nullptr;
  void* task_ = nullptr;
};

/// What an implementation receives: the task's buffers in the order of its accesses, plus the
/// stream or queue of the device it runs on.
class TaskContext {
 public:
  std::size_t size() const { return buffers_.size(); }
  const Buffer& buffer(std::size_t i) const { return buffers_[i]; }
  /// buffer(i).ptr as T* (CPU and CUDA).
  template <typename T>
  T* data(std::size_t i) const {
    return static_cast<T*>(buffers_[i].ptr);
  }
  /// buffer(i) as a cl_mem (OpenCL).
  cl_mem opencl_mem(std::size_t i) const { return static_cast<cl_mem>(buffers_[i].ptr); }

  DeviceKind kind() const { return kind_; }
  /// "cpu", "opencl:0", "cuda:1".
  std::string_view device() const { return device_; }
  /// Index of the worker in Runtime::workers().
  int worker() const { return worker_; }
  /// The task's name (given to submit, or the codelet's name).
  std::string_view task_name() const { return task_name_; }
  /// The id submit returned for this task.
  TaskId task_id() const { return task_id_; }

  /// CUDA: the cudaStream_t to enqueue on (as void* so that this header needs no CUDA).
  void* cuda_stream() const { return stream_; }
  /// OpenCL: the cl_command_queue to enqueue on.
  void* opencl_queue() const { return stream_; }
  /// OpenCL: the codelet's cl_kernel, built for this device (nullptr when no program was given).
  void* opencl_kernel() const { return kernel_; }

  /// The bytes passed as `args` to submit, as a T (a trivially copyable struct). Throws
  /// UsageError when sizeof(T) differs from what was passed.
  template <typename T>
  T args() const {
    if (sizeof(T) != args_.size())
      throw UsageError("task '" + std::string(task_name_) + "': args of " +
                       std::to_string(args_.size()) + " bytes read as " +
                       std::to_string(sizeof(T)) + " bytes");
    T value;
    std::memcpy(&value, args_.data(), sizeof(T));
    return value;
  }
  std::span<const std::byte> raw_args() const { return args_; }

  /// CPU implementations only: the task does not end when the function returns but when the
  /// returned Completion is done (or failed), so that work driven by something else (an MPI
  /// request, I/O) does not hold a worker while it waits. The buffers stay valid and the task's
  /// dependants wait until then. Throws UsageError on a device, outside a task, or when called
  /// twice.
  ///
  ///   recv.cpu([&](const conveyor::TaskContext& t) {
  ///     MPI_Request r;
  ///     MPI_Irecv(t.data<double>(0), n, MPI_DOUBLE, src, tag, comm, &r);
  ///     progress.watch(r, t.defer());   // the engine calls done() when MPI_Test says so
  ///   });
  Completion defer() const;

 private:
  friend struct device::TaskContextAccess;
  std::vector<Buffer> buffers_;
  DeviceKind kind_ = DeviceKind::Cpu;
  std::string_view device_;
  int worker_ = 0;
  std::string_view task_name_;
  TaskId task_id_ = 0;
  void* stream_ = nullptr;
  void* kernel_ = nullptr;
  std::span<const std::byte> args_;
  detail::CompletionSink* sink_ = nullptr;  ///< CPU tasks: the runtime, for defer()
  void* task_ = nullptr;
  mutable bool deferred_ = false;
};

/// An implementation: runs the task (CPU) or enqueues it (CUDA, OpenCL).
using TaskFunction = std::function<void(const TaskContext&)>;
/// The work of one task in floating-point operations, from its buffers' shapes and its args (the
/// TaskContext it gets has the shapes, null pointers and no device). Used by cost-aware
/// scheduling before a codelet has been measured, and by simulated devices.
using FlopsFunction = std::function<double(const TaskContext&)>;

/// The OpenCL program of a codelet: OpenCL C source, or a precompiled binary (FPGA flows build
/// offline), and the name of the kernel in it. Built once per device, on first use.
struct OpenclProgram {
  std::string source;                 ///< OpenCL C source (empty when `binary` is given)
  std::vector<unsigned char> binary;  ///< program binary for the device (clCreateProgramWithBinary)
  std::string kernel;                 ///< kernel name; empty: no kernel (the launcher needs none)
  std::string options;                ///< build options, e.g. "-DTILE=256"
};

namespace device {
struct CodeletImpl;  // the runtime's view (src/device/codelet_impl.hpp)
struct CodeletAccess;
}  // namespace device

class Codelet {
 public:
  /// `name` names the codelet's tasks in the trace and in placement (RuntimeOptions::offload).
  explicit Codelet(std::string name);

  /// The CPU implementation: runs on a pinned CPU worker with host pointers.
  Codelet& cpu(TaskFunction fn);
  /// The CUDA implementation: enqueues on TaskContext::cuda_stream() with device pointers.
  Codelet& cuda(TaskFunction launch);
  /// The OpenCL implementation: `launch` sets the arguments of TaskContext::opencl_kernel() (from
  /// `program`) and enqueues it on TaskContext::opencl_queue(), with cl_mem buffers.
  Codelet& opencl(OpenclProgram program, TaskFunction launch);
  /// The codelet's work per task, for scheduling before it is measured (optional).
  ///
  ///   gemm.flops([](const conveyor::TaskContext& t) {
  ///     return 2.0 * t.buffer(2).rows * t.buffer(2).cols * t.buffer(0).cols;
  ///   });
  Codelet& flops(FlopsFunction fn);

  const std::string& name() const;
  /// Whether the codelet has an implementation for `kind`.
  bool has(DeviceKind kind) const;

 private:
  friend struct device::CodeletAccess;
  std::shared_ptr<device::CodeletImpl> impl_;
};

}  // namespace conveyor
