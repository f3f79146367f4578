#pragma once
// The seed-004 probes on one OpenCL device. What each memory model means here:
//   pageable  host data in ordinary memory; clEnqueueWrite/ReadBuffer to and from a device buffer.
//             Also carries d2d: clEnqueueCopyBuffer between two device buffers.
//   pinned    host data in a CL_MEM_ALLOC_HOST_PTR buffer kept mapped (page-locked on discrete
//   GPUs);
//             clEnqueueWrite/ReadBuffer between its mapping and a device buffer.
//   mapped    zero-copy: host data lives in a CL_MEM_ALLOC_HOST_PTR buffer that kernels use in
//   place.
//             A transfer is map + host memcpy (from/to ordinary memory) + unmap; a task is unmap
//             (hand over to the device) + kernel + map (hand back).
//   svm       as mapped, with coarse-grained shared virtual memory and clEnqueueSVMMap/Unmap;
//   offered
//             only where the device reports SVM capabilities.
// Every transfer and task is timed on the host clock around calls that have completed; memory is
// allocated (and grown) outside the timed region and kept for reuse.
#include <memory>

#include "context.hpp"
#include "conveyor/probe.hpp"
#include "core/seconds_of.hpp"
#include "host_blocks.hpp"
#include "probe_hooks.hpp"

namespace conveyor::backend::opencl {

/// Seconds `body` takes on the host's steady clock.
class OpenCLProbeTarget final : public ProbeTarget, public ProbeHooks {
 public:
  explicit OpenCLProbeTarget(std::shared_ptr<DeviceContext> context);

  std::vector<MemoryModel> memory_models() const override;
  std::vector<Direction> directions(MemoryModel model) const override;
  double transfer(Direction direction, MemoryModel model, std::size_t bytes) override;
  double dispatch_enqueue(int count) override;
  double dispatch_roundtrip() override;
  double memory_task(MemoryModel model, std::size_t bytes) override;
  double matmul(int n, const float* a, const float* b, float* c) override;  // opencl_probe_apps.cpp
  double md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) override;  // "

  std::uint8_t* transfer_host_side(MemoryModel model, std::size_t bytes) override;
  float* task_host_side(MemoryModel model, std::size_t bytes) override;

 private:
  const DeviceFacts& facts() const { return context_->facts(); }
  void check_model(MemoryModel model) const;
  /// Throws UsageError unless 0 < bytes <= the device's largest allocation.
  void check_bytes(std::size_t bytes, const char* what) const;
  double transfer_copy(Direction direction, std::byte* host, std::size_t bytes);
  double transfer_mapped(Direction direction, MemoryModel model, std::size_t bytes);
  void ensure_device(std::size_t bytes) { device_.ensure(context_->get(), queue_.get(), bytes); }
  cl_kernel task_kernel();
  cl_kernel matmul_kernel();
  cl_kernel md5_kernel();

  std::shared_ptr<DeviceContext> context_;
  Queue queue_;  // before the blocks, which borrow it
  Kernel empty_, task_, matmul_, md5_;
  std::size_t task_local_ = 1;
  std::size_t tile_ = 1;
  PageableBlock pageable_;
  DeviceBlock device_, peer_;
  HostMappedBlock pinned_, zero_copy_;
  SvmBlock svm_;
  DeviceBlock matrix_a_, matrix_b_, matrix_c_, messages_, digests_;
};

}  // namespace conveyor::backend::opencl
