// Enqueues the OpenCL Jacobi tile kernel (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "common/opencl/opencl_calls.hpp"
#include "conveyor/error.hpp"
#include "stencil/opencl/stencil_opencl_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

constexpr common::OpenclCalls kCl{"OpenCL stencil"};

}  // namespace

bool opencl_kernels_available() { return true; }

void opencl_jacobi_enqueue(void* queue, void* kernel_ptr, const DeviceTiles& t,
                           const Coefficients& c) {
  auto kernel = static_cast<cl_kernel>(kernel_ptr);
  if (!kernel) throw Error("OpenCL stencil: the codelet has no kernel (program not built)");
  // Absent neighbours are passed as the input tile, absent own strips as the output tile: the
  // kernel never touches them (bits says which exist).
  auto mem = [&](void* p) { return static_cast<cl_mem>(p ? p : t.in); };
  auto out = [&](void* p) { return static_cast<cl_mem>(p ? p : t.out); };
  kCl.arg(kernel, 0, out(t.out));
  kCl.arg(kernel, 1, mem(t.in));
  kCl.arg(kernel, 2, mem(t.north));
  kCl.arg(kernel, 3, mem(t.south));
  kCl.arg(kernel, 4, mem(t.west));
  kCl.arg(kernel, 5, mem(t.east));
  kCl.arg(kernel, 6, out(t.out_north));
  kCl.arg(kernel, 7, out(t.out_south));
  kCl.arg(kernel, 8, out(t.out_west));
  kCl.arg(kernel, 9, out(t.out_east));
  kCl.arg(kernel, 10, cl_int{t.rows});
  kCl.arg(kernel, 11, cl_int{t.cols});
  kCl.arg(kernel, 12, cl_int{neighbour_bits(t)});
  kCl.arg(kernel, 13, cl_double{c.c0});
  kCl.arg(kernel, 14, cl_double{c.c1});
  // The exact shape, local size left to the driver: no padding work-items to mask off.
  std::size_t global[2] = {static_cast<std::size_t>(t.rows), static_cast<std::size_t>(t.cols)};
  kCl.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), kernel, 2, nullptr, global,
                                   nullptr, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

}  // namespace conveyor::apps::stencil
