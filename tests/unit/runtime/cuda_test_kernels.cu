// CUDA kernels of the runtime tests' codelets (cuda_test_kernels.hpp).
#include <cuda_runtime.h>

#include <string>

#include "conveyor/error.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"

namespace conveyor::test::cuda {
namespace {

constexpr unsigned kThreads = 128;

unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// Launch errors (a bad configuration, no device) surface here; errors of the kernel itself surface
// in the runtime's completion of the stream.
void launched(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(e));
}

template <typename T>
__global__ void add_one_kernel(T* x, std::size_t n) {
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) x[i] += 1;
}
template <typename T>
__global__ void scale_kernel(T* x, std::size_t n) {
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) x[i] *= 2;
}
template <typename T>
__global__ void accumulate_kernel(const T* x, T* y, std::size_t n) {
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) y[i] += x[i];
}
__global__ void diff_op_kernel(DiffOp op) {
  std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= op.count) return;
  std::uint32_t acc = (op.read_write ? 3u * op.out[e] : 0u) + op.salt;
  for (std::uint32_t j = 0; j < op.reads; ++j) acc += (j + 1) * op.in[j][e % op.in_count[j]];
  op.out[e] = acc;
}

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

}  // namespace

void add_one(int* x, std::size_t n, void* s) {
  if (n == 0) return;
  add_one_kernel<<<blocks(n), kThreads, 0, as_stream(s)>>>(x, n);
  launched("add_one");
}
void scale(int* x, std::size_t n, void* s) {
  if (n == 0) return;
  scale_kernel<<<blocks(n), kThreads, 0, as_stream(s)>>>(x, n);
  launched("scale");
}
void scale(double* x, std::size_t n, void* s) {
  if (n == 0) return;
  scale_kernel<<<blocks(n), kThreads, 0, as_stream(s)>>>(x, n);
  launched("scale");
}
void accumulate(const int* x, int* y, std::size_t n, void* s) {
  if (n == 0) return;
  accumulate_kernel<<<blocks(n), kThreads, 0, as_stream(s)>>>(x, y, n);
  launched("accumulate");
}
void accumulate(const double* x, double* y, std::size_t n, void* s) {
  if (n == 0) return;
  accumulate_kernel<<<blocks(n), kThreads, 0, as_stream(s)>>>(x, y, n);
  launched("accumulate");
}
void diff_op(const DiffOp& op, void* s) {
  if (op.count == 0) return;
  diff_op_kernel<<<blocks(op.count), kThreads, 0, as_stream(s)>>>(op);
  launched("diff_op");
}

void* device_alloc(int ordinal, std::size_t bytes) {
  void* p = nullptr;
  if (cudaSetDevice(ordinal) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess)
    throw DeviceError("cudaMalloc of " + std::to_string(bytes) + " bytes failed");
  return p;
}
void device_free(void* p) { cudaFree(p); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    throw DeviceError("cudaMemcpy to the device failed");
}
void copy_from_device(void* dst, const void* src, std::size_t bytes) {
  if (cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
    throw DeviceError("cudaMemcpy from the device failed");
}

}  // namespace conveyor::test::cuda
