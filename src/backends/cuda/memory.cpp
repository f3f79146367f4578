#include "memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "conveyor/units.hpp"

namespace conveyor::backend::cuda {

void PageableFree::operator()(void* p) const noexcept { std::free(p); }

void use_device(int ordinal) { CONVEYOR_CUDA_CHECK(cudaSetDevice(ordinal)); }

DevicePtr device_alloc(std::size_t bytes) {
  void* p = nullptr;
  CONVEYOR_CUDA_CHECK(cudaMalloc(&p, bytes));
  DevicePtr owned(p);
  // cudaMemset runs on the legacy default stream, which the non-blocking streams the backends use
  // do not wait for: without the synchronisation a copy into the block could land first and be
  // zeroed (seen on an H100 shared by several processes: wrong MD5 digests).
  CONVEYOR_CUDA_CHECK(cudaMemset(p, 0, bytes));
  CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return owned;
}

HostPtr pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  CONVEYOR_CUDA_CHECK(cudaMallocHost(&p, bytes));
  std::memset(p, 0, bytes);
  return HostPtr(p);
}

HostPtr mapped_alloc(std::size_t bytes) {
  void* p = nullptr;
  CONVEYOR_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
  std::memset(p, 0, bytes);
  return HostPtr(p);
}

PageablePtr pageable_alloc(std::size_t bytes) {
  // calloc may hand back untouched zero pages; memset faults them in now rather than in a timed
  // copy.
  void* p = std::malloc(bytes);
  if (!p) throw Error(fmt::format("cannot allocate {} of host memory", format_bytes(bytes)));
  std::memset(p, 0, bytes);
  return PageablePtr(p);
}

Stream make_stream() {
  cudaStream_t s = nullptr;
  CONVEYOR_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

Event make_event(bool timing) {
  cudaEvent_t e = nullptr;
  CONVEYOR_CUDA_CHECK(
      cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return Event(e);
}

void* mapped_device_pointer(void* host) {
  void* device = nullptr;
  CONVEYOR_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
  return device;
}

}  // namespace conveyor::backend::cuda
