#pragma once
// Small integer codelets with an implementation for every device kind the runtime tests run on:
// CPU, CUDA (kernels in cuda_test_kernels.cu on a real GPU; the emulated device runs the host code
// on host pointers), and OpenCL (kernels built from source by the driver). The runtime tests'
// binary is also built without OpenCL (the sanitizer presets), so the two OpenCL calls are looked
// up in the process, where the OpenCL backend has loaded them whenever an OpenCL device exists.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300  // as the library is built; the sanitizer builds lack it
#endif
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"

namespace conveyor::test {

inline const char* kIntKernels = R"CL(
__kernel void add_one(__global int* x, uint n) {
  uint i = get_global_id(0);
  if (i < n) x[i] += 1;
}
__kernel void scale(__global int* x, uint n) {
  uint i = get_global_id(0);
  if (i < n) x[i] *= 2;
}
__kernel void accumulate(__global const int* x, __global int* y, uint n) {
  uint i = get_global_id(0);
  if (i < n) y[i] += x[i];
}
)CL";

template <typename Fn>
Fn* cl_entry(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) throw DeviceError(std::string(name) + " not found in the process");
  return reinterpret_cast<Fn*>(f);
}

inline void set_arg(cl_kernel k, cl_uint i, std::size_t size, const void* value) {
  static auto* fn = cl_entry<decltype(clSetKernelArg)>("clSetKernelArg");
  if (fn(k, i, size, value) != CL_SUCCESS) throw DeviceError("clSetKernelArg failed");
}

/// Runs the task's kernel over n work-items; `local` 0 lets the driver pick the work-group size
/// (else n must be a multiple of it).
inline void enqueue_1d(const TaskContext& t, std::size_t n, std::size_t local = 0) {
  static auto* fn = cl_entry<decltype(clEnqueueNDRangeKernel)>("clEnqueueNDRangeKernel");
  auto k = static_cast<cl_kernel>(t.opencl_kernel());
  std::size_t global = n;
  cl_int err = fn(static_cast<cl_command_queue>(t.opencl_queue()), k, 1, nullptr, &global,
                  local ? &local : nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) throw DeviceError("clEnqueueNDRangeKernel failed");
}

/// x[i] += 1 on an int vector (buffer 0, ReadWrite).
inline Codelet add_one_codelet(const std::string& name = "add_one") {
  Codelet c(name);
  auto host = [](const TaskContext& t) {
    int* x = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] += 1;
  };
  c.cpu(host).cuda([host](const TaskContext& t) {
    if (!cuda::real(t.device())) return host(t);
    cuda::add_one(t.data<int>(0), t.buffer(0).rows, t.cuda_stream());
  });
  c.opencl({.source = kIntKernels, .kernel = "add_one"}, [](const TaskContext& t) {
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0));
    cl_uint n = static_cast<cl_uint>(t.buffer(0).rows);
    set_arg(k, 0, sizeof x, &x);
    set_arg(k, 1, sizeof n, &n);
    enqueue_1d(t, n);
  });
  return c;
}

/// x *= 2 on an int vector or matrix (buffer 0, ReadWrite; host: with its leading dimension).
inline Codelet scale_codelet(const std::string& name = "scale") {
  Codelet c(name);
  auto host = [](const TaskContext& t) {
    const Buffer& b = t.buffer(0);
    for (std::size_t j = 0; j < b.cols; ++j)
      for (std::size_t i = 0; i < b.rows; ++i) t.data<int>(0)[i + j * b.ld] *= 2;
  };
  c.cpu(host).cuda([host](const TaskContext& t) {
    if (!cuda::real(t.device())) return host(t);
    const Buffer& b = t.buffer(0);
    cuda::scale(t.data<int>(0), b.rows * b.cols, t.cuda_stream());  // contiguous there
  });
  c.opencl({.source = kIntKernels, .kernel = "scale"}, [](const TaskContext& t) {
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0));
    cl_uint n = static_cast<cl_uint>(t.buffer(0).rows * t.buffer(0).cols);  // contiguous there
    set_arg(k, 0, sizeof x, &x);
    set_arg(k, 1, sizeof n, &n);
    enqueue_1d(t, n);
  });
  return c;
}

/// y[i] += x[i] on int vectors of the same length (x Read, y ReadWrite).
inline Codelet accumulate_codelet(const std::string& name = "accumulate") {
  Codelet c(name);
  auto host = [](const TaskContext& t) {  // wraps (in unsigned): a long chain overflows an int
    const int* x = t.data<int>(0);
    int* y = t.data<int>(1);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i)
      y[i] = static_cast<int>(static_cast<unsigned>(y[i]) + static_cast<unsigned>(x[i]));
  };
  c.cpu(host).cuda([host](const TaskContext& t) {
    if (!cuda::real(t.device())) return host(t);
    cuda::accumulate(t.data<int>(0), t.data<int>(1), t.buffer(0).rows, t.cuda_stream());
  });
  c.opencl({.source = kIntKernels, .kernel = "accumulate"}, [](const TaskContext& t) {
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0)), y = static_cast<cl_mem>(t.opencl_mem(1));
    cl_uint n = static_cast<cl_uint>(t.buffer(0).rows);
    set_arg(k, 0, sizeof x, &x);
    set_arg(k, 1, sizeof y, &y);
    set_arg(k, 2, sizeof n, &n);
    enqueue_1d(t, n);
  });
  return c;
}

}  // namespace conveyor::test
