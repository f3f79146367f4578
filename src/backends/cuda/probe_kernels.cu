// Kernels of the offload-cost probes (seed 004): an empty kernel, an in-place touch of every float,
// a thread-driven copy for mapped host memory, and MD5 of 64-byte messages.
#include <algorithm>
#include <cstdint>

#include "core/md5.hpp"
#include "kernels.hpp"

namespace conveyor::backend::cuda {
namespace {

constexpr int kThreads = 256;

__device__ inline std::size_t global_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::size_t grid_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

unsigned grid_for(std::size_t work, int max_blocks) {
  const std::size_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, std::max(max_blocks, 1)));
}

__global__ void empty_kernel() {}

template <bool Vectorised>
__global__ void touch_kernel(float* data, std::size_t count) {
  const std::size_t start = global_index(), stride = grid_stride();
  std::size_t done = 0;
  if (Vectorised) {
    float4* quads = reinterpret_cast<float4*>(data);
    for (std::size_t i = start; i < count / 4; i += stride) {
      float4 v = quads[i];
      quads[i] = make_float4(v.x + 1.0f, v.y + 1.0f, v.z + 1.0f, v.w + 1.0f);
    }
    done = count / 4 * 4;
  }
  for (std::size_t i = done + start; i < count; i += stride) data[i] += 1.0f;
}

template <bool Vectorised>
__global__ void copy_bytes_kernel(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
  const std::size_t start = global_index(), stride = grid_stride();
  std::size_t done = 0;
  if (Vectorised) {
    for (std::size_t i = start; i < bytes / 16; i += stride)
      reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
    done = bytes / 16 * 16;
  }
  for (std::size_t i = done + start; i < bytes; i += stride) dst[i] = src[i];
}

// The message buffer is device memory from cudaMalloc, so every 64-byte message is 16-byte aligned.
__global__ void md5_kernel(const uint4* messages, uint4* digests, std::size_t count) {
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    std::uint32_t m[16];
    for (int q = 0; q < 4; ++q) {
      const uint4 v = messages[i * 4 + q];
      m[q * 4 + 0] = v.x;
      m[q * 4 + 1] = v.y;
      m[q * 4 + 2] = v.z;
      m[q * 4 + 3] = v.w;
    }
    std::uint32_t digest[4];
    core::md5_64(m, digest);
    digests[i] = make_uint4(digest[0], digest[1], digest[2], digest[3]);
  }
}

}  // namespace

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_touch(float* data, std::size_t count, int max_blocks, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (aligned16(data)) {
    touch_kernel<true><<<grid_for(count / 4 + 1, max_blocks), kThreads, 0, stream>>>(data, count);
  } else {
    touch_kernel<false><<<grid_for(count, max_blocks), kThreads, 0, stream>>>(data, count);
  }
  return cudaGetLastError();
}

cudaError_t launch_copy_bytes(void* dst, const void* src, std::size_t bytes, int max_blocks,
                              cudaStream_t stream) {
  if (bytes == 0) return cudaSuccess;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (aligned16(dst) && aligned16(src)) {
    copy_bytes_kernel<true>
        <<<grid_for(bytes / 16 + 1, max_blocks), kThreads, 0, stream>>>(d, s, bytes);
  } else {
    copy_bytes_kernel<false><<<grid_for(bytes, max_blocks), kThreads, 0, stream>>>(d, s, bytes);
  }
  return cudaGetLastError();
}

cudaError_t launch_md5(const std::uint8_t* messages, std::uint8_t* digests, std::size_t count,
                       int max_blocks, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  md5_kernel<<<grid_for(count, max_blocks), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(messages), reinterpret_cast<uint4*>(digests), count);
  return cudaGetLastError();
}

}  // namespace conveyor::backend::cuda
