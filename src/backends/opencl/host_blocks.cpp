#include "host_blocks.hpp"

#include <cstring>

namespace conveyor::backend::opencl {
namespace {

constexpr std::size_t kGranule = 4096;

}  // namespace

void PageableBlock::ensure(std::size_t bytes) {
  if (bytes <= size_) return;
  size_ = round_up(bytes, kGranule);
  data_.reset();  // free first: the old and new block need not coexist
  data_ = std::make_unique<std::byte[]>(size_);  // value-initialised: every page touched
}

void DeviceBlock::ensure(cl_context context, cl_command_queue queue, std::size_t bytes) {
  if (bytes <= size_) return;
  mem_.reset();
  size_ = 0;
  std::size_t size = round_up(bytes, kGranule);
  mem_.reset(
      CONVEYOR_CL_CREATE(clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &cl_err)));
  const cl_uchar zero = 0;
  CONVEYOR_CL_CHECK(
      clEnqueueFillBuffer(queue, mem_.get(), &zero, sizeof(zero), 0, size, 0, nullptr, nullptr));
  CONVEYOR_CL_CHECK(clFinish(queue));
  size_ = size;
}

void DeviceBlock::swap(DeviceBlock& other) noexcept {
  std::swap(mem_, other.mem_);
  std::swap(size_, other.size_);
}

HostMappedBlock::~HostMappedBlock() {
  if (ptr_) {
    clEnqueueUnmapMemObject(queue_, mem_.get(), ptr_, 0, nullptr, nullptr);
    clFinish(queue_);
  }
}

void HostMappedBlock::ensure(cl_context context, std::size_t bytes) {
  if (bytes <= size_) return;
  unmap();
  CONVEYOR_CL_CHECK(clFinish(queue_));
  mem_.reset();
  size_ = 0;
  std::size_t size = round_up(bytes, kGranule);
  mem_.reset(CONVEYOR_CL_CREATE(
      clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, nullptr, &cl_err)));
  size_ = size;
  std::memset(map(CL_MAP_READ | CL_MAP_WRITE, size), 0, size);
}

void* HostMappedBlock::map(cl_map_flags flags, std::size_t bytes) {
  unmap();
  ptr_ = CONVEYOR_CL_CREATE(clEnqueueMapBuffer(queue_, mem_.get(), CL_TRUE, flags, 0, bytes, 0,
                                               nullptr, nullptr, &cl_err));
  mapped_bytes_ = bytes;
  mapped_flags_ = flags;
  return ptr_;
}

void* HostMappedBlock::host_view(std::size_t bytes) {
  constexpr cl_map_flags kReadWrite = CL_MAP_READ | CL_MAP_WRITE;
  if (ptr_ && mapped_bytes_ >= bytes && mapped_flags_ == kReadWrite) return ptr_;
  return map(kReadWrite, bytes);
}

void HostMappedBlock::unmap() {
  if (!ptr_) return;
  void* ptr = std::exchange(ptr_, nullptr);
  CONVEYOR_CL_CHECK(clEnqueueUnmapMemObject(queue_, mem_.get(), ptr, 0, nullptr, nullptr));
}

SvmBlock::~SvmBlock() { release(); }

void SvmBlock::release() noexcept {
  if (!ptr_) return;
  if (mapped_) clEnqueueSVMUnmap(queue_, ptr_, 0, nullptr, nullptr);
  clFinish(queue_);  // clSVMFree does not wait for commands that use the memory
  clSVMFree(context_, ptr_);
  ptr_ = nullptr;
  mapped_ = false;
  size_ = 0;
}

void SvmBlock::ensure(std::size_t bytes) {
  if (bytes <= size_) return;
  release();
  std::size_t size = round_up(bytes, kGranule);
  ptr_ = clSVMAlloc(context_, CL_MEM_READ_WRITE, size, 0);
  if (!ptr_)  // clSVMAlloc reports no error code
    throw DeviceError(
        fmt::format("clSVMAlloc(context, CL_MEM_READ_WRITE, {}, 0) returned null at {}:{}", size,
                    "host_blocks.cpp", __LINE__));
  size_ = size;
  std::memset(map(CL_MAP_READ | CL_MAP_WRITE, size), 0, size);
}

void* SvmBlock::map(cl_map_flags flags, std::size_t bytes) {
  unmap();
  CONVEYOR_CL_CHECK(clEnqueueSVMMap(queue_, CL_TRUE, flags, ptr_, bytes, 0, nullptr, nullptr));
  mapped_ = true;
  mapped_bytes_ = bytes;
  mapped_flags_ = flags;
  return ptr_;
}

void* SvmBlock::host_view(std::size_t bytes) {
  constexpr cl_map_flags kReadWrite = CL_MAP_READ | CL_MAP_WRITE;
  if (mapped_ && mapped_bytes_ >= bytes && mapped_flags_ == kReadWrite) return ptr_;
  return map(kReadWrite, bytes);
}

void SvmBlock::unmap() {
  if (!mapped_) return;
  mapped_ = false;
  CONVEYOR_CL_CHECK(clEnqueueSVMUnmap(queue_, ptr_, 0, nullptr, nullptr));
}

}  // namespace conveyor::backend::opencl
