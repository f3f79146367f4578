#pragma once
// Small integer codelets with an implementation for every device kind the runtime tests run on:
// CPU, "cuda" (the emulated device runs them on host pointers; a real CUDA device is not given
// these, see device_kind_ok), and OpenCL (kernels built from source by the driver).
#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor::test {

inline const char* kIntKernels = R"CL(
__kernel void add_one(__global int* x, uint n) {
  uint i = get_global_id(0);
  if (i < n) x[i] += 1;
}
__kernel void accumulate(__global const int* x, __global int* y, uint n) {
  uint i = get_global_id(0);
  if (i < n) y[i] += x[i];
}
)CL";

inline void enqueue_1d(const TaskContext& t, std::size_t n) {
  auto k = static_cast<cl_kernel>(t.opencl_kernel());
  std::size_t global = n;
  cl_int err = clEnqueueNDRangeKernel(static_cast<cl_command_queue>(t.opencl_queue()), k, 1,
                                      nullptr, &global, nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) throw DeviceError("clEnqueueNDRangeKernel failed");
}

/// x[i] += 1 on an int vector (buffer 0, ReadWrite).
inline Codelet add_one_codelet(const std::string& name = "add_one") {
  Codelet c(name);
  auto host = [](const TaskContext& t) {
    int* x = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] += 1;
  };
  c.cpu(host).cuda(host);
  c.opencl({.source = kIntKernels, .kernel = "add_one"}, [](const TaskContext& t) {
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0));
    cl_uint n = static_cast<cl_uint>(t.buffer(0).rows);
    clSetKernelArg(k, 0, sizeof x, &x);
    clSetKernelArg(k, 1, sizeof n, &n);
    enqueue_1d(t, n);
  });
  return c;
}

/// y[i] += x[i] on int vectors of the same length (x Read, y ReadWrite).
inline Codelet accumulate_codelet(const std::string& name = "accumulate") {
  Codelet c(name);
  auto host = [](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<int>(1)[i] += t.data<int>(0)[i];
  };
  c.cpu(host).cuda(host);
  c.opencl({.source = kIntKernels, .kernel = "accumulate"}, [](const TaskContext& t) {
    auto k = static_cast<cl_kernel>(t.opencl_kernel());
    cl_mem x = static_cast<cl_mem>(t.opencl_mem(0)), y = static_cast<cl_mem>(t.opencl_mem(1));
    cl_uint n = static_cast<cl_uint>(t.buffer(0).rows);
    clSetKernelArg(k, 0, sizeof x, &x);
    clSetKernelArg(k, 1, sizeof y, &y);
    clSetKernelArg(k, 2, sizeof n, &n);
    enqueue_1d(t, n);
  });
  return c;
}

}  // namespace conveyor::test
