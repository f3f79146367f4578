#pragma once
// The plain CUDA loop's sweep, shared by the peer (jacobi_cuda.cu) and the tile-kernel benchmark
// (tile_kernel_cuda.cu), so that both measure the very same kernel.
#include <cuda_runtime.h>

#include <cstddef>

namespace conveyor::bench::stencil {

// One sweep of an n x n grid, one thread per cell: x down a column (column-major, so a warp reads
// 32 consecutive doubles), y across columns. The outer ring is the fixed boundary: both grids hold
// it from the start and no sweep writes it. The same update in the same order as stencil/point.hpp
// (c0 * centre + c1 * (((north + south) + west) + east)), products and sums with __dmul_rn /
// __dadd_rn so that nvcc fuses nothing into an FMA.
__global__ void jacobi_loop_sweep(const double* __restrict__ in, double* __restrict__ out, int n,
                                  double c0, double c1) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row <= 0 || col <= 0 || row >= n - 1 || col >= n - 1) return;
  const std::size_t stride = static_cast<std::size_t>(n);
  const std::size_t at = static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * stride;
  const double north = in[at - 1], south = in[at + 1];
  const double west = in[at - stride], east = in[at + stride];
  const double neighbours = __dadd_rn(__dadd_rn(__dadd_rn(north, south), west), east);
  out[at] = __dadd_rn(__dmul_rn(c0, in[at]), __dmul_rn(c1, neighbours));
}

// The launch shape of every sweep: 32 rows x 8 columns per block.
inline dim3 jacobi_loop_block() { return dim3(32, 8); }
inline dim3 jacobi_loop_grid(int n) {
  return dim3(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((n + 7) / 8));
}

}  // namespace conveyor::bench::stencil
