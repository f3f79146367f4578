// Enqueues the OpenCL QR tile kernels (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <string>

#include "common/opencl/opencl_calls.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"
#include "qr/opencl/qr_opencl_clblast.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace conveyor::apps::qr {
namespace {

constexpr common::OpenclCalls kCl{"OpenCL qr"};

// Sets the kernel's arguments in order: ints as cl_int, pointers as cl_mem.
class Args {
 public:
  explicit Args(void* kernel) : kernel_(static_cast<cl_kernel>(kernel)) {
    if (!kernel_) throw Error("OpenCL qr: the codelet has no kernel (program not built)");
  }
  Args& operator<<(int v) { return set(sizeof(cl_int), &v); }
  Args& operator<<(void* mem) {
    auto m = static_cast<cl_mem>(mem);
    return set(sizeof m, &m);
  }
  /// A __local buffer of `bytes`.
  Args& local(std::size_t bytes) { return set(bytes, nullptr); }
  cl_kernel kernel() const { return kernel_; }

 private:
  Args& set(std::size_t size, const void* value) {
    kCl.check(clSetKernelArg(kernel_, index_++, size, value), "clSetKernelArg");
    return *this;
  }
  cl_kernel kernel_;
  cl_uint index_ = 0;
};

// The panel kernels: one work-group; its scratch holds the group's partial sums and a block's ib
// dot products.
void enqueue_panel(void* queue, const Args& args) {
  std::size_t group = kOpenclPanelGroup;
  kCl.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), args.kernel(), 1, nullptr,
                                   &group, &group, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

std::size_t scratch_bytes(std::size_t elem_size, int ib) {
  return elem_size * static_cast<std::size_t>(std::max(kOpenclPanelGroup, ib));
}

// The updates: one work-item per column, the range rounded up to groups of 32.
void enqueue_columns(void* queue, const Args& args, int n) {
  std::size_t local = 32;
  std::size_t global = (static_cast<std::size_t>(n) + local - 1) / local * local;
  kCl.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), args.kernel(), 1, nullptr,
                                   &global, &local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

}  // namespace

bool opencl_kernels_available() { return true; }

void opencl_geqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* a, int lda, void* t, int ldt, void* v, int ldv) {
  Args args(kernel);
  args << m << n << ib << a << lda << t << ldt << v << ldv;
  args.local(scratch_bytes(elem_size, ib));
  enqueue_panel(queue, args);
}

void opencl_gemqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int k,
                           int ib, void* v, int ldv, void* t, int ldt, void* c, int ldc) {
  if (common::use_clblast(kClblastUpdatesByDefault))
    return clblast_gemqrt_enqueue(queue, kernel, elem_size, m, n, k, ib, v, ldv, t, ldt, c, ldc);
  Args args(kernel);
  args << m << n << k << ib << v << ldv << t << ldt << c << ldc;
  enqueue_columns(queue, args, n);
}

void opencl_tpqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* r, int ldr, void* b, int ldb, void* t, int ldt) {
  Args args(kernel);
  args << m << n << ib << r << ldr << b << ldb << t << ldt;
  args.local(scratch_bytes(elem_size, ib));
  enqueue_panel(queue, args);
}

void opencl_tpmqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int k,
                           int ib, void* v, int ldv, void* t, int ldt, void* a, int lda, void* b,
                           int ldb) {
  if (common::use_clblast(kClblastUpdatesByDefault))
    return clblast_tpmqrt_enqueue(queue, kernel, elem_size, m, n, k, ib, v, ldv, t, ldt, a, lda, b,
                                  ldb);
  Args args(kernel);
  args << m << n << k << ib << v << ldv << t << ldt << a << lda << b << ldb;
  enqueue_columns(queue, args, n);
}

}  // namespace conveyor::apps::qr
