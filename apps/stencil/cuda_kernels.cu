// The CUDA Jacobi tile kernel (built when CMake found the CUDA toolkit). Compiled, not yet run on a
// GPU.
#include <cuda_runtime.h>

#include <string>

#include "conveyor/error.hpp"
#include "stencil/cuda_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

// __dmul_rn / __dadd_rn are never fused into an FMA (nvcc fuses a * b + c by default), so the
// result rounds exactly as the host's point() does (point.hpp) and the check can ask for equality.
__global__ void jacobi_tile(double* __restrict__ out, const double* __restrict__ in,
                            const double* north, const double* south, const double* west,
                            const double* east, int rows, int cols, int north_rows, int south_rows,
                            int west_cols, int bits, double c0, double c1) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  const long at = r + static_cast<long>(c) * rows;
  const double x = in[at];
  if ((r == 0 && !(bits & kNorth)) || (r == rows - 1 && !(bits & kSouth)) ||
      (c == 0 && !(bits & kWest)) || (c == cols - 1 && !(bits & kEast))) {
    out[at] = x;
    return;
  }
  const double up =
      r > 0 ? in[at - 1] : north[(north_rows - 1) + static_cast<long>(c) * north_rows];
  const double down = r < rows - 1 ? in[at + 1] : south[static_cast<long>(c) * south_rows];
  const double left = c > 0 ? in[at - rows] : west[r + static_cast<long>(west_cols - 1) * rows];
  const double right = c < cols - 1 ? in[at + rows] : east[r];
  const double sum = __dadd_rn(__dadd_rn(__dadd_rn(up, down), left), right);
  out[at] = __dadd_rn(__dmul_rn(c0, x), __dmul_rn(c1, sum));
}

}  // namespace

bool cuda_kernels_available() { return true; }

void cuda_jacobi_enqueue(void* stream, const DeviceTiles& t, const Coefficients& c) {
  // 32 rows (one warp down a column: coalesced) x 8 columns per block.
  const dim3 block(32, 8);
  const dim3 grid((t.rows + 31) / 32, (t.cols + 7) / 8);
  auto ptr = [](void* p) { return static_cast<const double*>(p); };
  jacobi_tile<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<double*>(t.out), ptr(t.in), ptr(t.north), ptr(t.south), ptr(t.west), ptr(t.east),
      t.rows, t.cols, t.north_rows, t.south_rows, t.west_cols, neighbour_bits(t), c.c0, c.c1);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA stencil: launch failed: ") + cudaGetErrorString(status));
}

}  // namespace conveyor::apps::stencil
