// STREAM on an OpenCL device: three device buffers of doubles, one kernel per STREAM operation,
// device time from event profiling. Dot reduces per work-group on the device and sums the partials
// on the host.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "conveyor/stream.hpp"
#include "conveyor/units.hpp"
#include "opencl_device.hpp"

namespace conveyor::backend::opencl {
namespace {

constexpr const char* kStreamSource = R"CLC(
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void stream_init(__global double* a, __global double* b, __global double* c,
                          double va, double vb, double vc, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) { a[i] = va; b[i] = vb; c[i] = vc; }
}

__kernel void stream_copy(__global const double* restrict a, __global double* restrict c, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i];
}

__kernel void stream_scale(__global double* restrict b, __global const double* restrict c,
                           double s, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) b[i] = s * c[i];
}

__kernel void stream_add(__global const double* restrict a, __global const double* restrict b,
                         __global double* restrict c, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void stream_triad(__global double* restrict a, __global const double* restrict b,
                           __global const double* restrict c, double s, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) a[i] = b[i] + s * c[i];
}

// Each work-group sums one contiguous block of local_size * DOT_PER_ITEM elements, reduces in local
// memory (the local size is a power of two) and writes one partial sum. Within the block, GPUs want
// neighbouring work-items on neighbouring elements (coalescing); CPU drivers run a group's work-items
// one after the other, so there each work-item takes a contiguous run (DOT_CONTIGUOUS) and the block
// is read sequentially.
__kernel void stream_dot(__global const double* restrict a, __global const double* restrict b,
                         __global double* restrict partial, __local double* scratch, ulong n) {
  size_t lid = get_local_id(0), group_size = get_local_size(0);
#if DOT_CONTIGUOUS
  size_t i = (get_group_id(0) * group_size + lid) * DOT_PER_ITEM, step = 1;
#else
  size_t i = get_group_id(0) * group_size * DOT_PER_ITEM + lid, step = group_size;
#endif
  double sum = 0.0;
  for (int j = 0; j < DOT_PER_ITEM && i < n; ++j, i += step) sum += a[i] * b[i];
  scratch[lid] = sum;
  for (size_t width = group_size / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < width) scratch[lid] += scratch[lid + width];
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
)CLC";

constexpr std::size_t kLocalSize = 256;
// Elements per work-item in Dot; the CPU value amortises the local-memory reduction, which CPU
// drivers run slowly (measured on PoCL 3.1: 16 -> 64 took Dot from ~7.8 to ~9.4 GB/s).
constexpr std::size_t kDotPerItemGpu = 16;
constexpr std::size_t kDotPerItemCpu = 64;

std::size_t kernel_work_group(cl_kernel kernel, cl_device_id device) {
  std::size_t size = 0;
  CONVEYOR_CL_CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof(size), &size, nullptr));
  return size;
}

std::size_t floor_power_of_two(std::size_t n) {
  std::size_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

void check_fits(const DeviceFacts& f, const StreamConfig& config) {
  if (config.elements == 0) throw UsageError("stream arrays need at least one element");
  if (!f.fp64)
    throw UsageError(fmt::format(
        "{} ({}) has no double precision (cl_khr_fp64); STREAM computes in doubles", f.id, f.name));
  constexpr std::uint64_t kMaxElements = std::numeric_limits<std::uint64_t>::max() / 24;
  std::uint64_t bytes = std::min<std::uint64_t>(config.elements, kMaxElements) * sizeof(double);
  if (config.elements > kMaxElements || bytes > f.max_alloc_bytes || 3 * bytes > f.global_mem_bytes)
    throw UsageError(fmt::format(
        "stream arrays of 3 x {} ({} elements) do not fit {} ({}): global memory {}, largest "
        "allocation {}",
        format_bytes(bytes), config.elements, f.id, f.name, format_bytes(f.global_mem_bytes),
        format_bytes(f.max_alloc_bytes)));
}

class OpenCLStreamArrays final : public StreamArrays {
 public:
  OpenCLStreamArrays(std::shared_ptr<DeviceContext> context, std::size_t elements)
      : context_(std::move(context)), queue_(context_->make_queue()), elements_(elements) {
    const DeviceFacts& f = context_->facts();
    std::size_t bytes = elements * sizeof(double);
    for (Mem* array : {&a_, &b_, &c_})
      array->reset(CONVEYOR_CL_CREATE(
          clCreateBuffer(context_->get(), CL_MEM_READ_WRITE, bytes, nullptr, &cl_err)));

    bool cpu = (f.type & CL_DEVICE_TYPE_CPU) != 0;
    dot_per_item_ = cpu ? kDotPerItemCpu : kDotPerItemGpu;
    const std::string options =
        fmt::format("-DDOT_PER_ITEM={} -DDOT_CONTIGUOUS={}", dot_per_item_, cpu ? 1 : 0);
    auto make = [&](const char* name) { return context_->kernel(kStreamSource, name, options); };
    init_ = make("stream_init");
    copy_ = make("stream_copy");
    scale_ = make("stream_scale");
    add_ = make("stream_add");
    triad_ = make("stream_triad");
    dot_ = make("stream_dot");

    local_ = std::min(kLocalSize, f.max_work_group);
    for (const Kernel* k : {&init_, &copy_, &scale_, &add_, &triad_})
      local_ = std::min(local_, kernel_work_group(k->get(), f.device));
    dot_local_ = floor_power_of_two(
        std::min({kLocalSize, kernel_work_group(dot_.get(), f.device),
                  static_cast<std::size_t>(f.local_mem_bytes / (2 * sizeof(double)))}));
    dot_groups_ = (elements_ + dot_local_ * dot_per_item_ - 1) / (dot_local_ * dot_per_item_);
    partial_host_.resize(dot_groups_);
    partial_.reset(CONVEYOR_CL_CREATE(clCreateBuffer(
        context_->get(), CL_MEM_WRITE_ONLY, dot_groups_ * sizeof(double), nullptr, &cl_err)));

    cl_ulong n = elements_;
    set_arg(copy_.get(), 0, a_.get());
    set_arg(copy_.get(), 1, c_.get());
    set_arg(copy_.get(), 2, n);
    set_arg(scale_.get(), 0, b_.get());
    set_arg(scale_.get(), 1, c_.get());
    set_arg(scale_.get(), 3, n);
    set_arg(add_.get(), 0, a_.get());
    set_arg(add_.get(), 1, b_.get());
    set_arg(add_.get(), 2, c_.get());
    set_arg(add_.get(), 3, n);
    set_arg(triad_.get(), 0, a_.get());
    set_arg(triad_.get(), 1, b_.get());
    set_arg(triad_.get(), 2, c_.get());
    set_arg(triad_.get(), 4, n);
    set_arg(dot_.get(), 0, a_.get());
    set_arg(dot_.get(), 1, b_.get());
    set_arg(dot_.get(), 2, partial_.get());
    CONVEYOR_CL_CHECK(clSetKernelArg(dot_.get(), 3, dot_local_ * sizeof(double), nullptr));
    set_arg(dot_.get(), 4, n);
  }

  void initialize(double a, double b, double c) override {
    cl_ulong n = elements_;
    set_arg(init_.get(), 0, a_.get());
    set_arg(init_.get(), 1, b_.get());
    set_arg(init_.get(), 2, c_.get());
    set_arg(init_.get(), 3, a);
    set_arg(init_.get(), 4, b);
    set_arg(init_.get(), 5, c);
    set_arg(init_.get(), 6, n);
    launch_1d(queue_.get(), init_.get(), elements_, local_);
    CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  }

  double run(StreamKernel kernel, double scalar, double* dot) override {
    if (kernel == StreamKernel::Dot) return run_dot(dot);
    cl_kernel k = nullptr;
    switch (kernel) {
      case StreamKernel::Copy:
        k = copy_.get();
        break;
      case StreamKernel::Scale:
        k = scale_.get();
        set_arg(k, 2, scalar);
        break;
      case StreamKernel::Add:
        k = add_.get();
        break;
      case StreamKernel::Triad:
        k = triad_.get();
        set_arg(k, 3, scalar);
        break;
      case StreamKernel::Dot:
        break;
    }
    Event done;
    launch_1d(queue_.get(), k, elements_, local_, done.out());
    cl_event last = done.get();
    CONVEYOR_CL_CHECK(clWaitForEvents(1, &last));
    return event_seconds(done.get());
  }

  void read_back(std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) override {
    std::size_t bytes = elements_ * sizeof(double);
    for (auto [buffer, host] : {std::pair{a_.get(), &a}, {b_.get(), &b}, {c_.get(), &c}}) {
      host->resize(elements_);
      CONVEYOR_CL_CHECK(clEnqueueReadBuffer(queue_.get(), buffer, CL_TRUE, 0, bytes, host->data(),
                                            0, nullptr, nullptr));
    }
  }

  nlohmann::json placement() const override {
    return {{"device", context_->facts().id}, {"buffer_flags", "CL_MEM_READ_WRITE"},
            {"work_group_size", local_},      {"dot_work_group_size", dot_local_},
            {"dot_work_groups", dot_groups_}, {"dot_elements_per_item", dot_per_item_}};
  }

 private:
  double run_dot(double* dot) {
    Event reduce, read;
    launch_1d(queue_.get(), dot_.get(), dot_groups_ * dot_local_, dot_local_, reduce.out());
    CONVEYOR_CL_CHECK(clEnqueueReadBuffer(queue_.get(), partial_.get(), CL_FALSE, 0,
                                          dot_groups_ * sizeof(double), partial_host_.data(), 0,
                                          nullptr, read.out()));
    cl_event last = read.get();
    CONVEYOR_CL_CHECK(clWaitForEvents(1, &last));
    auto start = std::chrono::steady_clock::now();
    double sum = 0;
    for (double p : partial_host_) sum += p;
    std::chrono::duration<double> host = std::chrono::steady_clock::now() - start;
    if (dot) *dot = sum;
    return event_span_seconds(reduce.get(), read.get()) + host.count();
  }

  std::shared_ptr<DeviceContext> context_;
  Queue queue_;
  std::size_t elements_;
  Mem a_, b_, c_, partial_;
  Kernel init_, copy_, scale_, add_, triad_, dot_;
  std::size_t local_ = 1, dot_local_ = 1, dot_per_item_ = 1, dot_groups_ = 1;
  std::vector<double> partial_host_;
};

}  // namespace

std::unique_ptr<StreamArrays> OpenCLDevice::make_stream_arrays(const StreamConfig& config) {
  check_fits(facts_, config);
  return std::make_unique<OpenCLStreamArrays>(context(), config.elements);
}

}  // namespace conveyor::backend::opencl
