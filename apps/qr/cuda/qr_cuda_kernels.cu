// The CUDA QR tile kernels (built when CMake found the CUDA toolkit): device_kernels.inc compiled
// once per precision, the code the OpenCL kernels run on PoCL in the tests. Compiled, not yet run
// on a GPU.
#include <cuda_runtime.h>

#include <string>

#include "conveyor/error.hpp"
#include "qr/cuda/qr_cuda_kernels.hpp"

namespace conveyor::apps::qr {

// device_kernels.inc's macros for CUDA: no address spaces, __syncthreads orders shared and global
// memory within the block.
#define QR_DEVICE_CODE(...) __VA_ARGS__
#define GLOBAL
#define LOCAL
#define DEVICE_FN __device__
#define BARRIER() __syncthreads()

// Included once per precision into the same namespace: every function has a REAL argument, so the
// two sets are overloads and the templates below pick theirs.
namespace {
#define REAL float
#include "qr/device_kernels.inc"
#undef REAL
#define REAL double
#include "qr/device_kernels.inc"
#undef REAL
}  // namespace

#undef QR_DEVICE_CODE
#undef GLOBAL
#undef LOCAL
#undef DEVICE_FN
#undef BARRIER

namespace {

// Dynamic shared memory, declared once as bytes (its type may not differ between instantiations).
template <typename T>
__device__ T* shared_scratch() {
  extern __shared__ __align__(8) unsigned char scratch[];
  return reinterpret_cast<T*>(scratch);
}

template <typename T>
__global__ void geqrt_kernel(int m, int n, int ib, T* a, int lda, T* t, int ldt, T* v, int ldv) {
  qr_geqrt_group(m, n, ib, a, lda, t, ldt, v, ldv, shared_scratch<T>(), threadIdx.x, blockDim.x);
}
template <typename T>
__global__ void tpqrt_kernel(int m, int n, int ib, T* r, int ldr, T* b, int ldb, T* t, int ldt) {
  qr_tpqrt_group(m, n, ib, r, ldr, b, ldb, t, ldt, shared_scratch<T>(), threadIdx.x, blockDim.x);
}
template <typename T>
__global__ void gemqrt_kernel(int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt,
                              T* c, int ldc) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < n) qr_gemqrt_column(col, m, k, ib, v, ldv, t, ldt, c, ldc);
}
template <typename T>
__global__ void tpmqrt_kernel(int m, int n, int k, int ib, const T* v, int ldv, const T* t, int ldt,
                              T* a, int lda, T* b, int ldb) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < n) qr_tpmqrt_column(col, m, k, ib, v, ldv, t, ldt, a, lda, b, ldb);
}

void check_launch() {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA qr: launch failed: ") + cudaGetErrorString(status));
}

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

// The panel's shared memory: the block's partial sums and a block of ib dot products.
template <typename T>
std::size_t scratch_bytes(int ib) {
  return sizeof(T) * static_cast<std::size_t>(ib > kCudaPanelThreads ? ib : kCudaPanelThreads);
}

constexpr int kColumnThreads = 32;
unsigned column_blocks(int n) {
  return static_cast<unsigned>((n + kColumnThreads - 1) / kColumnThreads);
}

}  // namespace

bool cuda_kernels_available() { return true; }

template <typename T>
void cuda_geqrt(void* stream, int m, int n, int ib, T* a, int lda, T* t, int ldt, T* v, int ldv) {
  geqrt_kernel<T><<<1, kCudaPanelThreads, scratch_bytes<T>(ib), as_stream(stream)>>>(
      m, n, ib, a, lda, t, ldt, v, ldv);
  check_launch();
}
template <typename T>
void cuda_gemqrt(void* stream, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                 int ldt, T* c, int ldc) {
  gemqrt_kernel<T><<<column_blocks(n), kColumnThreads, 0, as_stream(stream)>>>(m, n, k, ib, v, ldv,
                                                                               t, ldt, c, ldc);
  check_launch();
}
template <typename T>
void cuda_tpqrt(void* stream, int m, int n, int ib, T* r, int ldr, T* b, int ldb, T* t, int ldt) {
  tpqrt_kernel<T><<<1, kCudaPanelThreads, scratch_bytes<T>(ib), as_stream(stream)>>>(
      m, n, ib, r, ldr, b, ldb, t, ldt);
  check_launch();
}
template <typename T>
void cuda_tpmqrt(void* stream, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                 int ldt, T* a, int lda, T* b, int ldb) {
  tpmqrt_kernel<T><<<column_blocks(n), kColumnThreads, 0, as_stream(stream)>>>(
      m, n, k, ib, v, ldv, t, ldt, a, lda, b, ldb);
  check_launch();
}

#define CONVEYOR_INSTANTIATE(T)                                                                   \
  template void cuda_geqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_gemqrt<T>(void*, int, int, int, int, const T*, int, const T*, int, T*, int); \
  template void cuda_tpqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_tpmqrt<T>(void*, int, int, int, int, const T*, int, const T*, int, T*, int,  \
                               T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
