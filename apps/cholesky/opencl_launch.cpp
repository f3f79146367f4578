// Enqueues the OpenCL gemm tile kernel (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

#include "cholesky/opencl_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS)
    throw DeviceError(std::string("OpenCL gemm: ") + what + " failed with error " +
                      std::to_string(status));
}

template <typename T>
void set_arg(cl_kernel kernel, cl_uint index, const T& value) {
  check(clSetKernelArg(kernel, index, sizeof(T), &value), "clSetKernelArg");
}

}  // namespace

bool opencl_kernels_available() { return true; }

void opencl_gemm_enqueue(void* queue, void* kernel_ptr, int m, int n, int k, void* a, int lda,
                         void* b, int ldb, void* c, int ldc) {
  auto kernel = static_cast<cl_kernel>(kernel_ptr);
  if (!kernel) throw Error("OpenCL gemm: the codelet has no kernel (program not built)");
  set_arg(kernel, 0, cl_int{m});
  set_arg(kernel, 1, cl_int{n});
  set_arg(kernel, 2, cl_int{k});
  set_arg(kernel, 3, static_cast<cl_mem>(a));
  set_arg(kernel, 4, cl_int{lda});
  set_arg(kernel, 5, static_cast<cl_mem>(b));
  set_arg(kernel, 6, cl_int{ldb});
  set_arg(kernel, 7, static_cast<cl_mem>(c));
  set_arg(kernel, 8, cl_int{ldc});
  // 32 x 32 blocks of C per group of 32 x 8 work-items (see the kernel).
  std::size_t local[2] = {32, 8};
  std::size_t global[2] = {static_cast<std::size_t>((m + 31) / 32) * 32,
                           static_cast<std::size_t>((n + 31) / 32) * 8};
  check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), kernel, 2, nullptr, global,
                               local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

}  // namespace conveyor::apps::cholesky
