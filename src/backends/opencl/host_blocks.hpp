#pragma once
// Growable memory blocks for the probes, one per way host and device memory meet. Each block
// allocates and touches its memory when it grows, never inside a timed region, and keeps it for
// reuse. The queue a block maps and unmaps with is borrowed: its owner declares the Queue before
// the blocks.
#include <cstddef>
#include <memory>

#include "cl.hpp"

namespace conveyor::backend::opencl {

/// Ordinary host memory from new[] (what a user's malloc'd data is), zero-filled when it grows.
class PageableBlock {
 public:
  void ensure(std::size_t bytes);
  std::byte* data() const { return data_.get(); }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0;
};

/// A device buffer (CL_MEM_READ_WRITE), filled once on allocation so the driver commits it up
/// front.
class DeviceBlock {
 public:
  void ensure(cl_context context, cl_command_queue queue, std::size_t bytes);
  cl_mem get() const { return mem_.get(); }
  std::size_t size() const { return size_; }
  void swap(DeviceBlock& other) noexcept;

 private:
  Mem mem_;
  std::size_t size_ = 0;
};

/// A CL_MEM_ALLOC_HOST_PTR buffer: memory the driver allocates where the host can map it cheaply
/// (page-locked on discrete GPUs). Pinned staging keeps it mapped for good; the zero-copy model
/// maps it around host access and hands it to kernels unmapped.
class HostMappedBlock {
 public:
  explicit HostMappedBlock(cl_command_queue queue) : queue_(queue) {}
  HostMappedBlock(const HostMappedBlock&) = delete;
  HostMappedBlock& operator=(const HostMappedBlock&) = delete;
  ~HostMappedBlock();

  /// Grows to `bytes` if smaller; a new block is left mapped for reading and writing.
  void ensure(cl_context context, std::size_t bytes);
  /// Maps the first `bytes` (blocking) and returns the host pointer; unmaps a previous mapping
  /// first.
  void* map(cl_map_flags flags, std::size_t bytes);
  /// Enqueues the unmap of the current mapping, if any (the caller synchronises).
  void unmap();
  /// The host pointer to the first `bytes`, mapped for reading and writing unless already mapped
  /// so.
  void* host_view(std::size_t bytes);
  /// The current mapping or null.
  void* mapped() const { return ptr_; }
  cl_mem get() const { return mem_.get(); }

 private:
  cl_command_queue queue_;
  Mem mem_;
  void* ptr_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  cl_map_flags mapped_flags_ = 0;
  std::size_t size_ = 0;
};

/// Coarse-grained shared virtual memory (clSVMAlloc): one pointer valid on host and device, with
/// ownership passed by clEnqueueSVMMap / clEnqueueSVMUnmap.
class SvmBlock {
 public:
  SvmBlock(cl_context context, cl_command_queue queue) : context_(context), queue_(queue) {}
  SvmBlock(const SvmBlock&) = delete;
  SvmBlock& operator=(const SvmBlock&) = delete;
  ~SvmBlock();

  /// Grows to `bytes` if smaller; a new block is left mapped for reading and writing.
  void ensure(std::size_t bytes);
  /// Maps the first `bytes` for the host (blocking), after unmapping a previous mapping.
  void* map(cl_map_flags flags, std::size_t bytes);
  /// Enqueues the unmap, if mapped (the caller synchronises).
  void unmap();
  /// The pointer, with its first `bytes` mapped for reading and writing unless already mapped so.
  void* host_view(std::size_t bytes);
  void* get() const { return ptr_; }

 private:
  void release() noexcept;

  cl_context context_;
  cl_command_queue queue_;
  void* ptr_ = nullptr;
  bool mapped_ = false;
  std::size_t mapped_bytes_ = 0;
  cl_map_flags mapped_flags_ = 0;
  std::size_t size_ = 0;
};

}  // namespace conveyor::backend::opencl
