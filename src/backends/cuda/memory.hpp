#pragma once
// Owning handles for CUDA resources (device, pinned and mapped memory, streams, events) and buffers
// that only grow, so that probes can allocate lazily and never inside a timed region.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace conveyor::backend::cuda {

// Deleters run in destructors and so cannot throw; a failure to free is ignored there on purpose.
struct DeviceFree {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
struct HostFree {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
struct PageableFree {
  void operator()(void* p) const noexcept;
};
struct StreamDestroy {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};

using DevicePtr = std::unique_ptr<void, DeviceFree>;
using HostPtr = std::unique_ptr<void, HostFree>;
using PageablePtr = std::unique_ptr<void, PageableFree>;
using Stream = std::unique_ptr<CUstream_st, StreamDestroy>;
using Event = std::unique_ptr<CUevent_st, EventDestroy>;

/// Makes `ordinal` the calling thread's current device (the runtime keeps one per thread).
void use_device(int ordinal);

/// Zeroed device memory (cudaMalloc + cudaMemset).
DevicePtr device_alloc(std::size_t bytes);
/// Zeroed page-locked host memory (cudaMallocHost): DMA-able without a bounce buffer.
HostPtr pinned_alloc(std::size_t bytes);
/// Zeroed page-locked host memory mapped into the device's address space (cudaHostAllocMapped).
HostPtr mapped_alloc(std::size_t bytes);
/// Zeroed ordinary host memory, its pages touched so that first-touch faults are not timed later.
PageablePtr pageable_alloc(std::size_t bytes);
/// A stream that does not synchronise with the legacy default stream.
Stream make_stream();
/// An event; `timing` = false makes it cheaper to record when only completion matters.
Event make_event(bool timing = true);

/// Memory that is reallocated (contents lost, zeroed again) only when asked for more than it holds.
///   GrowingBuffer<DevicePtr, device_alloc> scratch;  void* p = scratch.reserve(1 << 20);
template <class Ptr, Ptr (*Alloc)(std::size_t)>
class GrowingBuffer {
 public:
  void* reserve(std::size_t bytes) {
    if (!ptr_ || bytes > capacity_) {
      ptr_.reset();  // free first: the old and new blocks need not fit together
      capacity_ = 0;
      ptr_ = Alloc(bytes == 0 ? 1 : bytes);
      capacity_ = bytes;
    }
    return ptr_.get();
  }
  void* get() const { return ptr_.get(); }
  std::size_t capacity() const { return capacity_; }

 private:
  Ptr ptr_;
  std::size_t capacity_ = 0;
};

using DeviceBuffer = GrowingBuffer<DevicePtr, device_alloc>;
using PinnedBuffer = GrowingBuffer<HostPtr, pinned_alloc>;
using MappedBuffer = GrowingBuffer<HostPtr, mapped_alloc>;
using PageableBuffer = GrowingBuffer<PageablePtr, pageable_alloc>;

/// The device's alias of a mapped host allocation (equal to the host pointer under UVA, but the
/// runtime is asked rather than assumed).
void* mapped_device_pointer(void* host);

}  // namespace conveyor::backend::cuda
