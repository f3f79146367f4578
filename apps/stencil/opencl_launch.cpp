// Enqueues the OpenCL Jacobi tile kernel (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "conveyor/error.hpp"
#include "stencil/opencl_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS)
    throw DeviceError(std::string("OpenCL stencil: ") + what + " failed with error " +
                      std::to_string(status));
}

template <typename T>
void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

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
  set_arg(kernel, 0, out(t.out));
  set_arg(kernel, 1, mem(t.in));
  set_arg(kernel, 2, mem(t.north));
  set_arg(kernel, 3, mem(t.south));
  set_arg(kernel, 4, mem(t.west));
  set_arg(kernel, 5, mem(t.east));
  set_arg(kernel, 6, out(t.out_north));
  set_arg(kernel, 7, out(t.out_south));
  set_arg(kernel, 8, out(t.out_west));
  set_arg(kernel, 9, out(t.out_east));
  set_arg(kernel, 10, cl_int{t.rows});
  set_arg(kernel, 11, cl_int{t.cols});
  set_arg(kernel, 12, cl_int{neighbour_bits(t)});
  set_arg(kernel, 13, cl_double{c.c0});
  set_arg(kernel, 14, cl_double{c.c1});
  // The exact shape, local size left to the driver: no padding work-items to mask off.
  std::size_t global[2] = {static_cast<std::size_t>(t.rows), static_cast<std::size_t>(t.cols)};
  check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), kernel, 2, nullptr, global,
                               nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

}  // namespace conveyor::apps::stencil
