// The CUDA Jacobi tile kernel (built when CMake found the CUDA toolkit). Compiled, not yet run on a
// GPU.
#include <cuda_runtime.h>

#include <string>

#include "conveyor/error.hpp"
#include "stencil/cuda/stencil_cuda_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

// __dmul_rn / __dadd_rn are never fused into an FMA (nvcc fuses a * b + c by default), so the
// result rounds exactly as the host's point() does (point.hpp) and the check can ask for equality.
// The neighbours' values across the tile's edges come from their strips (contiguous vectors); the
// threads on the tile's edges also write their value into the tile's own strips. Absent
// neighbours and strips are nullptr and never touched (bits says which exist).
__global__ void jacobi_tile(double* __restrict__ out, const double* __restrict__ in,
                            const double* north, const double* south, const double* west,
                            const double* east, double* out_north, double* out_south,
                            double* out_west, double* out_east, int rows, int cols, int bits,
                            double c0, double c1) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  const long at = r + static_cast<long>(c) * rows;
  const double x = in[at];
  double v = x;
  if (!((r == 0 && !(bits & kNorth)) || (r == rows - 1 && !(bits & kSouth)) ||
        (c == 0 && !(bits & kWest)) || (c == cols - 1 && !(bits & kEast)))) {
    const double up = r > 0 ? in[at - 1] : north[c];
    const double down = r < rows - 1 ? in[at + 1] : south[c];
    const double left = c > 0 ? in[at - rows] : west[r];
    const double right = c < cols - 1 ? in[at + rows] : east[r];
    const double sum = __dadd_rn(__dadd_rn(__dadd_rn(up, down), left), right);
    v = __dadd_rn(__dmul_rn(c0, x), __dmul_rn(c1, sum));
  }
  out[at] = v;
  if (r == 0 && (bits & kNorth)) out_north[c] = v;
  if (r == rows - 1 && (bits & kSouth)) out_south[c] = v;
  if (c == 0 && (bits & kWest)) out_west[r] = v;
  if (c == cols - 1 && (bits & kEast)) out_east[r] = v;
}

}  // namespace

bool cuda_kernels_available() { return true; }

void cuda_jacobi_enqueue(void* stream, const DeviceTiles& t, const Coefficients& c) {
  // 32 rows (one warp down a column: coalesced) x 8 columns per block.
  const dim3 block(32, 8);
  const dim3 grid((t.rows + 31) / 32, (t.cols + 7) / 8);
  auto ptr = [](void* p) { return static_cast<const double*>(p); };
  auto out = [](void* p) { return static_cast<double*>(p); };
  jacobi_tile<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      out(t.out), ptr(t.in), ptr(t.north), ptr(t.south), ptr(t.west), ptr(t.east), out(t.out_north),
      out(t.out_south), out(t.out_west), out(t.out_east), t.rows, t.cols, neighbour_bits(t), c.c0,
      c.c1);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA stencil: launch failed: ") + cudaGetErrorString(status));
}

}  // namespace conveyor::apps::stencil
