#pragma once
/// What the apps' OpenCL launchers share (included only by their *_launch.cpp files, which are
/// built only with OpenCL): a status check that throws DeviceError naming the app and the call,
/// and kernel arguments set by value.
///
///   constexpr common::OpenclCalls kCl{"OpenCL stencil"};
///   kCl.arg(kernel, 0, cl_int{n});
///   kCl.check(clEnqueueNDRangeKernel(queue, kernel, ...), "clEnqueueNDRangeKernel");
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "conveyor/error.hpp"

namespace conveyor::apps::common {

struct OpenclCalls {
  const char* who;  ///< "OpenCL stencil": the start of every error message

  /// Throws DeviceError("WHO: WHAT failed with error STATUS") unless status is CL_SUCCESS.
  void check(cl_int status, const char* what) const {
    if (status != CL_SUCCESS)
      throw DeviceError(std::string(who) + ": " + what + " failed with error " +
                        std::to_string(status));
  }
  template <typename T>
  void arg(cl_kernel kernel, cl_uint index, const T& value) const {
    check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
  }
};

}  // namespace conveyor::apps::common
