// STREAM kernels for NVIDIA GPUs. Each kernel is one small functor with a scalar form (one element)
// and a double2 form (two elements, 16-byte loads and stores); the launch shape picks which is
// used.
#include <algorithm>

#include "kernels.hpp"

namespace conveyor::backend::cuda {
namespace {

__device__ inline const double2* pairs(const double* p) {
  return reinterpret_cast<const double2*>(p);
}
__device__ inline double2* pairs(double* p) { return reinterpret_cast<double2*>(p); }
__device__ inline std::size_t global_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

struct InitOp {
  double *a, *b, *c;
  double va, vb, vc;
  __device__ void one(std::size_t i) const {
    a[i] = va;
    b[i] = vb;
    c[i] = vc;
  }
};
struct CopyOp {  // c = a
  const double* a;
  double* c;
  __device__ void one(std::size_t i) const { c[i] = a[i]; }
  __device__ void two(std::size_t i) const { pairs(c)[i] = pairs(a)[i]; }
};
struct ScaleOp {  // b = s * c
  double* b;
  const double* c;
  double s;
  __device__ void one(std::size_t i) const { b[i] = s * c[i]; }
  __device__ void two(std::size_t i) const {
    double2 v = pairs(c)[i];
    pairs(b)[i] = make_double2(s * v.x, s * v.y);
  }
};
struct AddOp {  // c = a + b
  const double *a, *b;
  double* c;
  __device__ void one(std::size_t i) const { c[i] = a[i] + b[i]; }
  __device__ void two(std::size_t i) const {
    double2 x = pairs(a)[i], y = pairs(b)[i];
    pairs(c)[i] = make_double2(x.x + y.x, x.y + y.y);
  }
};
struct TriadOp {  // a = b + s * c
  double* a;
  const double *b, *c;
  double s;
  __device__ void one(std::size_t i) const { a[i] = b[i] + s * c[i]; }
  __device__ void two(std::size_t i) const {
    double2 x = pairs(b)[i], y = pairs(c)[i];
    pairs(a)[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
};

template <class Op>
__global__ void one_per_thread(Op op, std::size_t n) {
  std::size_t i = global_index();
  if (i < n) op.one(i);
}

// cudaMalloc aligns to 256 bytes, so element 0 of every array starts a double2; an odd last element
// is done by one thread.
template <class Op>
__global__ void pairs_grid_stride(Op op, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = global_index();
  for (std::size_t i = start; i < n / 2; i += stride) op.two(i);
  if ((n & 1) && start == 0) op.one(n - 1);
}

// Sum over the block, valid in thread 0; blockDim.x is a multiple of 32, at most 1024.
__device__ double block_sum(double v) {
  __shared__ double warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  return v;
}

template <bool Vectorised>
__global__ void dot_partial(const double* a, const double* b, std::size_t n, double* partial) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = global_index();
  double sum = 0;
  if (Vectorised) {
    for (std::size_t i = start; i < n / 2; i += stride) {
      double2 x = pairs(a)[i], y = pairs(b)[i];
      sum += x.x * y.x + x.y * y.y;
    }
    if ((n & 1) && start == 0) sum += a[n - 1] * b[n - 1];
  } else {
    for (std::size_t i = start; i < n; i += stride) sum += a[i] * b[i];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void dot_final(const double* partial, int count, double* result) {
  double sum = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) *result = sum;
}

template <class Op>
cudaError_t launch(const Op& op, std::size_t n, const StreamLaunch& l) {
  if (n == 0) return cudaSuccess;
  if (l.vectorised) {
    pairs_grid_stride<<<l.blocks, l.threads, 0, l.stream>>>(op, n);
  } else {
    const auto blocks = static_cast<unsigned>((n + l.threads - 1) / l.threads);
    one_per_thread<<<blocks, l.threads, 0, l.stream>>>(op, n);
  }
  return cudaGetLastError();
}

template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0) != cudaSuccess) {
    cudaGetLastError();
    return 1;
  }
  return std::max(blocks, 1);
}

}  // namespace

int stream_resident_blocks(int sm_count, int threads) {
  int per_sm = blocks_per_sm(pairs_grid_stride<CopyOp>, threads);
  per_sm = std::min(per_sm, blocks_per_sm(pairs_grid_stride<ScaleOp>, threads));
  per_sm = std::min(per_sm, blocks_per_sm(pairs_grid_stride<AddOp>, threads));
  per_sm = std::min(per_sm, blocks_per_sm(pairs_grid_stride<TriadOp>, threads));
  per_sm = std::min(per_sm, blocks_per_sm(dot_partial<true>, threads));
  per_sm = std::min(per_sm, blocks_per_sm(dot_partial<false>, threads));
  return std::max(sm_count, 1) * per_sm;
}

cudaError_t launch_stream_init(double* a, double* b, double* c, double va, double vb, double vc,
                               std::size_t n, const StreamLaunch& l) {
  if (n == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>((n + l.threads - 1) / l.threads);
  one_per_thread<<<blocks, l.threads, 0, l.stream>>>(InitOp{a, b, c, va, vb, vc}, n);
  return cudaGetLastError();
}

cudaError_t launch_copy(const double* a, double* c, std::size_t n, const StreamLaunch& l) {
  return launch(CopyOp{a, c}, n, l);
}

cudaError_t launch_scale(double* b, const double* c, double s, std::size_t n,
                         const StreamLaunch& l) {
  return launch(ScaleOp{b, c, s}, n, l);
}

cudaError_t launch_add(const double* a, const double* b, double* c, std::size_t n,
                       const StreamLaunch& l) {
  return launch(AddOp{a, b, c}, n, l);
}

cudaError_t launch_triad(double* a, const double* b, const double* c, double s, std::size_t n,
                         const StreamLaunch& l) {
  return launch(TriadOp{a, b, c, s}, n, l);
}

cudaError_t launch_dot(const double* a, const double* b, std::size_t n, double* partial,
                       double* result, const StreamLaunch& l) {
  if (l.vectorised) {
    dot_partial<true><<<l.blocks, l.threads, 0, l.stream>>>(a, b, n, partial);
  } else {
    dot_partial<false><<<l.blocks, l.threads, 0, l.stream>>>(a, b, n, partial);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  dot_final<<<1, 1024, 0, l.stream>>>(partial, l.blocks, result);
  return cudaGetLastError();
}

}  // namespace conveyor::backend::cuda
