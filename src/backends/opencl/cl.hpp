#pragma once
// The OpenCL C API as the backend uses it: one include, the check macros every call goes through,
// owning handles for cl objects, and typed info queries.
//
//   Mem buffer(CONVEYOR_CL_CREATE(clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr,
//   &cl_err))); CONVEYOR_CL_CHECK(clFinish(queue));
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
// OpenCL 1.2 devices (older NVIDIA drivers, many FPGA boards) only have clCreateCommandQueue.
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <string>
#include <utility>
#include <vector>

#include "cl_error.hpp"

/// Runs an OpenCL call that returns its status; throws DeviceError naming the call, the error,
/// file, line.
#define CONVEYOR_CL_CHECK(call) \
  ::conveyor::backend::opencl::check_cl((call), #call, __FILE__, __LINE__)

/// Runs an OpenCL call that reports its status through `&cl_err` (a variable this macro declares)
/// and returns its result; throws DeviceError like CONVEYOR_CL_CHECK.
#define CONVEYOR_CL_CREATE(call)                                              \
  ([&] {                                                                      \
    cl_int cl_err = CL_SUCCESS;                                               \
    auto cl_result = (call);                                                  \
    ::conveyor::backend::opencl::check_cl(cl_err, #call, __FILE__, __LINE__); \
    return cl_result;                                                         \
  }())

namespace conveyor::backend::opencl {

template <typename T>
struct ClRelease;
template <>
struct ClRelease<cl_context> {
  static void release(cl_context h) { clReleaseContext(h); }
};
template <>
struct ClRelease<cl_command_queue> {
  static void release(cl_command_queue h) { clReleaseCommandQueue(h); }
};
template <>
struct ClRelease<cl_mem> {
  static void release(cl_mem h) { clReleaseMemObject(h); }
};
template <>
struct ClRelease<cl_program> {
  static void release(cl_program h) { clReleaseProgram(h); }
};
template <>
struct ClRelease<cl_kernel> {
  static void release(cl_kernel h) { clReleaseKernel(h); }
};
template <>
struct ClRelease<cl_event> {
  static void release(cl_event h) { clReleaseEvent(h); }
};

/// Sole owner of one cl object (move-only); releases it in the destructor.
template <typename T>
class ClHandle {
 public:
  ClHandle() = default;
  explicit ClHandle(T handle) : handle_(handle) {}
  ClHandle(const ClHandle&) = delete;
  ClHandle& operator=(const ClHandle&) = delete;
  ClHandle(ClHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ClHandle& operator=(ClHandle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.handle_, nullptr));
    return *this;
  }
  ~ClHandle() { reset(); }

  T get() const { return handle_; }
  /// For calls that write a handle through a pointer (events): releases the current one first.
  T* out() {
    reset();
    return &handle_;
  }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset(T handle = nullptr) {
    if (handle_) ClRelease<T>::release(handle_);
    handle_ = handle;
  }

 private:
  T handle_ = nullptr;
};

using Context = ClHandle<cl_context>;
using Queue = ClHandle<cl_command_queue>;
using Mem = ClHandle<cl_mem>;
using Program = ClHandle<cl_program>;
using Kernel = ClHandle<cl_kernel>;
using Event = ClHandle<cl_event>;

/// A scalar device property, e.g. device_info<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE).
template <typename T>
T device_info(cl_device_id device, cl_device_info param) {
  T value{};
  CONVEYOR_CL_CHECK(clGetDeviceInfo(device, param, sizeof(T), &value, nullptr));
  return value;
}

/// A scalar property a device may not know (older OpenCL versions): `fallback` when the query
/// fails.
template <typename T>
T device_info_or(cl_device_id device, cl_device_info param, T fallback) {
  T value{};
  return clGetDeviceInfo(device, param, sizeof(T), &value, nullptr) == CL_SUCCESS ? value
                                                                                  : fallback;
}

std::string device_string(cl_device_id device, cl_device_info param);
std::string platform_string(cl_platform_id platform, cl_platform_info param);

/// Duration of a finished command from its profiling timestamps, in seconds (queue needs
/// profiling).
double event_seconds(cl_event event);
/// From the start of `first` to the end of `last`, in seconds.
double event_span_seconds(cl_event first, cl_event last);

/// `n` rounded up to a multiple of `multiple` (> 0).
inline std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

/// Enqueues a 1-D kernel over `items` work-items in groups of `local` (the global size is rounded
/// up, so kernels guard their index), optionally returning the event.
void launch_1d(cl_command_queue queue, cl_kernel kernel, std::size_t items, std::size_t local,
               cl_event* event = nullptr);

/// Sets kernel argument `index` to `value` (a cl_mem, a scalar).
template <typename T>
void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  CONVEYOR_CL_CHECK(clSetKernelArg(kernel, index, sizeof(T), &value));
}

}  // namespace conveyor::backend::opencl
