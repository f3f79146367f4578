#pragma once
/// The apps' one OpenCL kernel cache (included only by their *_launch.cpp and *_clblast.cpp files,
/// which are built only with OpenCL): what a launcher would otherwise ask OpenCL at every launch,
/// looked up once per thread. The runtime drives each device from one thread, so the kernels a
/// thread gets here are its own: it alone sets their arguments.
///
///   common::OpenclKernelCache& cache = common::opencl_kernel_cache();
///   if (cache.is_cpu(kCl, queue)) kernel = cache.kernel(kCl, kernel, "cpu_gemm_n");
///   cl_mem w = cache.scratch(kCl, queue, 0, bytes);   // a work buffer for the kernels of a task
///
/// Every entry retains what it names (the queue; the program, through its kernel), so no address
/// in the cache can be reused by another object while the thread lives; the thread's exit
/// releases them.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/opencl/opencl_calls.hpp"

namespace conveyor::apps::common {

class OpenclKernelCache {
 public:
  OpenclKernelCache() = default;
  OpenclKernelCache(const OpenclKernelCache&) = delete;
  OpenclKernelCache& operator=(const OpenclKernelCache&) = delete;
  ~OpenclKernelCache() {
    for (const Kernel& k : kernels_) clReleaseKernel(k.kernel);
    for (const Scratch& s : scratch_) {
      clReleaseMemObject(s.mem);
      clReleaseCommandQueue(s.queue);
    }
    for (const Queue& q : queues_) clReleaseCommandQueue(q.queue);
  }

  /// Whether `queue` feeds a CPU device. Errors name `cl`'s caller.
  bool is_cpu(const OpenclCalls& cl, cl_command_queue queue) { return device(cl, queue).cpu; }

  /// The native vector width of `queue`'s device for elements of `elem_size` bytes (4 or 8): how
  /// many fit in one of its vector registers.
  int native_width(const OpenclCalls& cl, cl_command_queue queue, std::size_t elem_size) {
    const Queue& q = device(cl, queue);
    return elem_size == sizeof(double) ? q.double_width : q.float_width;
  }

  /// The kernel `name` of the program `sibling` was built from: a codelet names one kernel of its
  /// program, and its launcher may run others of the same program.
  cl_kernel kernel(const OpenclCalls& cl, cl_kernel sibling, const char* name) {
    cl_program program = nullptr;
    cl.check(clGetKernelInfo(sibling, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr),
             "clGetKernelInfo");
    for (const Kernel& k : kernels_)
      if (k.program == program && k.name == name) return k.kernel;
    cl_int status = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, name, &status);
    cl.check(status, ("clCreateKernel(" + std::string(name) + ")").c_str());
    kernels_.push_back({program, name, kernel});
    return kernel;
  }

  /// Work buffer `slot` of at least `bytes` in `queue`'s context. The queue is in order, so the
  /// kernels of one task after another may reuse it. A larger request replaces it: OpenCL frees
  /// the old one once the work enqueued on it is done.
  cl_mem scratch(const OpenclCalls& cl, cl_command_queue queue, int slot, std::size_t bytes) {
    Scratch* entry = nullptr;
    for (Scratch& s : scratch_)
      if (s.queue == queue && s.slot == slot) entry = &s;
    if (entry && entry->bytes >= bytes) return entry->mem;
    cl_context context = nullptr;
    cl.check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr),
             "clGetCommandQueueInfo");
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    cl.check(status, "clCreateBuffer(scratch)");
    if (entry) {
      clReleaseMemObject(entry->mem);
    } else {
      cl.check(clRetainCommandQueue(queue), "clRetainCommandQueue");
      entry = &scratch_.emplace_back(Scratch{queue, slot, nullptr, 0});
    }
    entry->mem = mem;
    entry->bytes = bytes;
    return mem;
  }

 private:
  struct Scratch {
    cl_command_queue queue;  // retained
    int slot;
    cl_mem mem;
    std::size_t bytes;
  };
  struct Kernel {
    cl_program program;  // kept alive by `kernel`
    std::string name;
    cl_kernel kernel;
  };
  struct Queue {
    cl_command_queue queue;  // retained
    bool cpu;
    int float_width, double_width;
  };
  const Queue& device(const OpenclCalls& cl, cl_command_queue queue) {
    for (const Queue& q : queues_)
      if (q.queue == queue) return q;
    cl_device_id device = nullptr;
    cl.check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr),
             "clGetCommandQueueInfo");
    cl_device_type type = 0;
    cl.check(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr),
             "clGetDeviceInfo");
    cl_uint widths[2] = {1, 1};
    cl.check(clGetDeviceInfo(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof widths[0],
                             &widths[0], nullptr),
             "clGetDeviceInfo");
    cl.check(clGetDeviceInfo(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, sizeof widths[1],
                             &widths[1], nullptr),
             "clGetDeviceInfo");
    cl.check(clRetainCommandQueue(queue), "clRetainCommandQueue");
    return queues_.emplace_back(Queue{queue, (type & CL_DEVICE_TYPE_CPU) != 0,
                                      std::max(1, int(widths[0])), std::max(1, int(widths[1]))});
  }
  std::vector<Queue> queues_;
  std::vector<Kernel> kernels_;
  std::vector<Scratch> scratch_;
};

/// This thread's cache, one for all the apps.
inline OpenclKernelCache& opencl_kernel_cache() {
  thread_local OpenclKernelCache cache;
  return cache;
}

}  // namespace conveyor::apps::common
