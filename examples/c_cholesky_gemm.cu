// The CUDA implementation of c_cholesky.c's gemm kernel, for a build with CUDA: the C API's
// conveyor_cuda_launch_fn. A C program cannot hold a CUDA kernel, so the kernel and its launch live
// here and c_cholesky.c names the launch (CONVEYOR_EXAMPLE_CUDA).
#include <cuda_runtime.h>

namespace {

// c -= a * bt^T on b x b column-major tiles: the same arithmetic as the example's OpenCL kernel.
__global__ void gemm(const float* a, const float* bt, float* c, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= b || j >= b) return;
  float s = 0.0f;
  for (int k = 0; k < b; ++k) s += a[i + k * b] * bt[j + k * b];
  c[i + j * b] -= s;
}

}  // namespace

// args: the device pointers of the three maps, then a host pointer to the block size.
extern "C" int c_cholesky_gemm_cuda(void* stream, void* const* args, int nargs) {
  if (nargs != 4) return 1;
  int b = *static_cast<const int*>(args[3]);
  dim3 threads(16, 16), blocks((b + 15) / 16, (b + 15) / 16);
  gemm<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const float*>(args[0]), static_cast<const float*>(args[1]),
      static_cast<float*>(args[2]), b);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
