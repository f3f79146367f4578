#include "opencl_probe_target.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "conveyor/units.hpp"
#include "opencl_device.hpp"

namespace conveyor::backend::opencl {
namespace {

constexpr const char* kProbeSource = R"CLC(
__kernel void empty(void) {}

__kernel void touch(__global float* x, float scale, float offset, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) x[i] = x[i] * scale + offset;
}
)CLC";

constexpr std::size_t kTaskLocal = 256;

void launch_empty(cl_command_queue queue, cl_kernel kernel) {
  const std::size_t one = 1;
  CONVEYOR_CL_CHECK(
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, nullptr, 0, nullptr, nullptr));
}

}  // namespace

OpenCLProbeTarget::OpenCLProbeTarget(std::shared_ptr<DeviceContext> context)
    : context_(std::move(context)),
      queue_(context_->make_queue()),
      pinned_(queue_.get()),
      zero_copy_(queue_.get()),
      svm_(context_->get(), queue_.get()) {
  empty_ = context_->kernel(kProbeSource, "empty");
  // The first launch of a kernel can include the driver's final compilation (PoCL does it per
  // work-group size): keep it out of every measurement.
  launch_empty(queue_.get(), empty_.get());
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));
}

std::vector<MemoryModel> OpenCLProbeTarget::memory_models() const {
  std::vector<MemoryModel> models = {MemoryModel::Pageable, MemoryModel::Pinned,
                                     MemoryModel::Mapped};
  if (facts().coarse_svm()) models.push_back(MemoryModel::Svm);
  return models;
}

std::vector<Direction> OpenCLProbeTarget::directions(MemoryModel model) const {
  check_model(model);
  if (model == MemoryModel::Pageable)
    return {Direction::HostToDevice, Direction::DeviceToHost, Direction::DeviceToDevice};
  return {Direction::HostToDevice, Direction::DeviceToHost};
}

void OpenCLProbeTarget::check_model(MemoryModel model) const {
  auto models = memory_models();
  if (std::find(models.begin(), models.end(), model) == models.end())
    throw UsageError(fmt::format("memory model '{}' is not available on {} ({})", to_string(model),
                                 facts().id, facts().name));
}

void OpenCLProbeTarget::check_bytes(std::size_t bytes, const char* what) const {
  if (bytes == 0)
    throw UsageError(fmt::format("{} on {}: size must be positive", what, facts().id));
  if (bytes > facts().max_alloc_bytes)
    throw UsageError(fmt::format("{} of {} does not fit one allocation on {} (at most {})", what,
                                 format_bytes(bytes), facts().id,
                                 format_bytes(facts().max_alloc_bytes)));
}

double OpenCLProbeTarget::transfer(Direction direction, MemoryModel model, std::size_t bytes) {
  auto supported = directions(model);  // checks the model too
  if (std::find(supported.begin(), supported.end(), direction) == supported.end())
    throw UsageError(fmt::format("{} has no {} transfer under the {} model", facts().id,
                                 to_string(direction), to_string(model)));
  check_bytes(bytes, "transfer");
  if (direction == Direction::DeviceToDevice) {
    // Both buffers the same size, so that swapping them (below) never forces a reallocation.
    std::size_t size = std::max(bytes, device_.size());
    ensure_device(size);
    peer_.ensure(context_->get(), queue_.get(), size);
    double t = core::seconds_of([&] {
      CONVEYOR_CL_CHECK(clEnqueueCopyBuffer(queue_.get(), device_.get(), peer_.get(), 0, 0, bytes,
                                            0, nullptr, nullptr));
      CONVEYOR_CL_CHECK(clFinish(queue_.get()));
    });
    device_.swap(peer_);  // the copy becomes what a following d2h reads
    return t;
  }
  if (model == MemoryModel::Pageable) {
    pageable_.ensure(bytes);
    return transfer_copy(direction, pageable_.data(), bytes);
  }
  if (model == MemoryModel::Pinned) {
    pinned_.ensure(context_->get(), bytes);
    return transfer_copy(direction, static_cast<std::byte*>(pinned_.mapped()), bytes);
  }
  return transfer_mapped(direction, model, bytes);
}

double OpenCLProbeTarget::transfer_copy(Direction direction, std::byte* host, std::size_t bytes) {
  ensure_device(bytes);
  return core::seconds_of([&] {
    if (direction == Direction::HostToDevice)
      CONVEYOR_CL_CHECK(clEnqueueWriteBuffer(queue_.get(), device_.get(), CL_TRUE, 0, bytes, host,
                                             0, nullptr, nullptr));
    else
      CONVEYOR_CL_CHECK(clEnqueueReadBuffer(queue_.get(), device_.get(), CL_TRUE, 0, bytes, host, 0,
                                            nullptr, nullptr));
  });
}

double OpenCLProbeTarget::transfer_mapped(Direction direction, MemoryModel model,
                                          std::size_t bytes) {
  pageable_.ensure(bytes);
  bool svm = model == MemoryModel::Svm;
  // Between transfers the device owns the block: a transfer is the hand-over to the host and back.
  if (svm) {
    svm_.ensure(bytes);
    svm_.unmap();
  } else {
    zero_copy_.ensure(context_->get(), bytes);
    zero_copy_.unmap();
  }
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  bool h2d = direction == Direction::HostToDevice;
  cl_map_flags flags = h2d ? CL_MAP_WRITE_INVALIDATE_REGION : CL_MAP_READ;
  return core::seconds_of([&] {
    void* mapped = svm ? svm_.map(flags, bytes) : zero_copy_.map(flags, bytes);
    if (h2d)
      std::memcpy(mapped, pageable_.data(), bytes);
    else
      std::memcpy(pageable_.data(), mapped, bytes);
    if (svm)
      svm_.unmap();
    else
      zero_copy_.unmap();
    CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  });
}

double OpenCLProbeTarget::dispatch_enqueue(int count) {
  if (count <= 0) throw UsageError(fmt::format("dispatch count must be positive, not {}", count));
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  double t = core::seconds_of([&] {
    for (int i = 0; i < count; ++i) launch_empty(queue_.get(), empty_.get());
  });
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  return t / count;
}

double OpenCLProbeTarget::dispatch_roundtrip() {
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  return core::seconds_of([&] {
    launch_empty(queue_.get(), empty_.get());
    CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  });
}

cl_kernel OpenCLProbeTarget::task_kernel() {
  if (!task_) {
    task_ = context_->kernel(kProbeSource, "touch");
    std::size_t limit = 0;
    CONVEYOR_CL_CHECK(clGetKernelWorkGroupInfo(
        task_.get(), facts().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit, nullptr));
    task_local_ = std::max<std::size_t>(1, std::min(kTaskLocal, limit));
    // Keep the driver's first-launch compilation out of the measurements (the kernel touches none).
    ensure_device(task_local_ * sizeof(float));
    set_arg(task_.get(), 0, device_.get());
    set_arg(task_.get(), 1, ProbeHooks::kTaskScale);
    set_arg(task_.get(), 2, ProbeHooks::kTaskOffset);
    set_arg(task_.get(), 3, cl_ulong{0});
    launch_1d(queue_.get(), task_.get(), 1, task_local_);
    CONVEYOR_CL_CHECK(clFinish(queue_.get()));
  }
  return task_.get();
}

double OpenCLProbeTarget::memory_task(MemoryModel model, std::size_t bytes) {
  check_model(model);
  check_bytes(bytes, "memory task");
  cl_kernel kernel = task_kernel();
  cl_ulong count = std::max<std::size_t>(1, bytes / sizeof(float));
  std::size_t used = count * sizeof(float);
  set_arg(kernel, 3, count);
  // Allocation, and the mapping where the host side is one, happen here, outside the timed region.
  float* host = task_host_side(model, used);
  CONVEYOR_CL_CHECK(clFinish(queue_.get()));

  switch (model) {
    case MemoryModel::Pageable:
    case MemoryModel::Pinned:
      ensure_device(used);
      set_arg(kernel, 0, device_.get());
      return core::seconds_of([&] {
        CONVEYOR_CL_CHECK(clEnqueueWriteBuffer(queue_.get(), device_.get(), CL_FALSE, 0, used, host,
                                               0, nullptr, nullptr));
        launch_1d(queue_.get(), kernel, count, task_local_);
        CONVEYOR_CL_CHECK(clEnqueueReadBuffer(queue_.get(), device_.get(), CL_TRUE, 0, used, host,
                                              0, nullptr, nullptr));
      });
    case MemoryModel::Mapped:
      set_arg(kernel, 0, zero_copy_.get());
      return core::seconds_of([&] {
        zero_copy_.unmap();
        launch_1d(queue_.get(), kernel, count, task_local_);
        zero_copy_.map(CL_MAP_READ | CL_MAP_WRITE, used);
      });
    case MemoryModel::Svm:
      CONVEYOR_CL_CHECK(clSetKernelArgSVMPointer(kernel, 0, svm_.get()));
      return core::seconds_of([&] {
        svm_.unmap();
        launch_1d(queue_.get(), kernel, count, task_local_);
        svm_.map(CL_MAP_READ | CL_MAP_WRITE, used);
      });
    case MemoryModel::Host:
      break;
  }
  throw UsageError("memory model 'host' is the CPU's own");
}

std::uint8_t* OpenCLProbeTarget::transfer_host_side(MemoryModel model, std::size_t bytes) {
  check_model(model);
  if (model == MemoryModel::Pinned) {
    pinned_.ensure(context_->get(), bytes);
    return static_cast<std::uint8_t*>(pinned_.mapped());
  }
  pageable_.ensure(bytes);
  return reinterpret_cast<std::uint8_t*>(pageable_.data());
}

float* OpenCLProbeTarget::task_host_side(MemoryModel model, std::size_t bytes) {
  check_model(model);
  switch (model) {
    case MemoryModel::Pinned:
      pinned_.ensure(context_->get(), bytes);
      return static_cast<float*>(pinned_.mapped());
    case MemoryModel::Mapped:
      zero_copy_.ensure(context_->get(), bytes);
      return static_cast<float*>(zero_copy_.host_view(bytes));
    case MemoryModel::Svm:
      svm_.ensure(bytes);
      return static_cast<float*>(svm_.host_view(bytes));
    default:
      pageable_.ensure(bytes);
      return reinterpret_cast<float*>(pageable_.data());
  }
}

std::unique_ptr<ProbeTarget> OpenCLDevice::make_probe_target() {
  return std::make_unique<OpenCLProbeTarget>(context());
}

}  // namespace conveyor::backend::opencl
