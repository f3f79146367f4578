// The CUDA kernels of temporal blocking (built when CMake found the CUDA toolkit), the same steps
// and the same arithmetic as the OpenCL ones (opencl/stencil_opencl_source.cpp): gather the
// extended tile, sweep it depth - 1 times over the region still valid, the last sweep into the tile
// and its own strips and corners. Products and sums with __dmul_rn / __dadd_rn, never fused.
// Compiled, not yet run on a GPU.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "conveyor/error.hpp"
#include "stencil/cuda/stencil_cuda_kernels.hpp"

namespace conveyor::apps::stencil {
namespace {

struct Pieces {
  const double* piece[4];  // strips N, S, W, E, or corners NW, NE, SW, SE
};
struct OutPieces {
  double* piece[4];
};

__device__ double point_rn(double c0, double c1, double x, double up, double down, double left,
                           double right) {
  const double sum = __dadd_rn(__dadd_rn(__dadd_rn(up, down), left), right);
  return __dadd_rn(__dmul_rn(c0, x), __dmul_rn(c1, sum));
}

__global__ void jacobi_gather(double* x, double* y, const double* in, Pieces strips, Pieces corners,
                              int rows, int cols, int bits, int width) {
  const int hn = (bits & kNorth) ? width : 0, hs = (bits & kSouth) ? width : 0;
  const int hw = (bits & kWest) ? width : 0, he = (bits & kEast) ? width : 0;
  const int ld = hn + rows + hs, ext_cols = hw + cols + he;
  const int er = blockIdx.x * blockDim.x + threadIdx.x;
  const int ec = blockIdx.y * blockDim.y + threadIdx.y;
  if (er >= ld || ec >= ext_cols) return;
  const int r = er - hn, c = ec - hw;
  double v;
  if (c < 0) {
    const long k = c + width;
    v = r < 0      ? corners.piece[0][(r + width) + k * width]
        : r < rows ? strips.piece[2][r + k * rows]
                   : corners.piece[2][(r - rows) + k * width];
  } else if (c < cols) {
    v = r < 0      ? strips.piece[0][(r + width) + static_cast<long>(c) * width]
        : r < rows ? in[r + static_cast<long>(c) * rows]
                   : strips.piece[1][(r - rows) + static_cast<long>(c) * width];
  } else {
    const long k = c - cols;
    v = r < 0      ? corners.piece[1][(r + width) + k * width]
        : r < rows ? strips.piece[3][r + k * rows]
                   : corners.piece[3][(r - rows) + k * width];
  }
  const long at = er + static_cast<long>(ec) * ld;
  x[at] = v;
  if ((er == 0 && !hn) || (er == ld - 1 && !hs) || (ec == 0 && !hw) || (ec == ext_cols - 1 && !he))
    y[at] = v;
}

__global__ void jacobi_sweep(const double* x, double* y, int ld, int row0, int col0, int count_rows,
                             int count_cols, double c0, double c1) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= count_rows || j >= count_cols) return;
  const long at = (row0 + i) + static_cast<long>(col0 + j) * ld;
  y[at] = point_rn(c0, c1, x[at], x[at - 1], x[at + 1], x[at - ld], x[at + ld]);
}

__global__ void jacobi_last(const double* x, double* out, OutPieces strips, OutPieces corners,
                            int rows, int cols, int bits, int width, double c0, double c1) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  const int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols) return;
  const int hn = (bits & kNorth) ? width : 0, hs = (bits & kSouth) ? width : 0;
  const int hw = (bits & kWest) ? width : 0;
  const int ld = hn + rows + hs;
  const long at = (r + hn) + static_cast<long>(c + hw) * ld;
  double v = x[at];
  if (!((r == 0 && !(bits & kNorth)) || (r == rows - 1 && !(bits & kSouth)) ||
        (c == 0 && !(bits & kWest)) || (c == cols - 1 && !(bits & kEast))))
    v = point_rn(c0, c1, v, x[at - 1], x[at + 1], x[at - ld], x[at + ld]);
  out[r + static_cast<long>(c) * rows] = v;
  const int rs = rows - width, cs = cols - width;
  const bool n = (bits & kNorth) && r < width, s = (bits & kSouth) && r >= rs;
  const bool w = (bits & kWest) && c < width, e = (bits & kEast) && c >= cs;
  if (n) strips.piece[0][r + static_cast<long>(c) * width] = v;
  if (s) strips.piece[1][(r - rs) + static_cast<long>(c) * width] = v;
  if (w) strips.piece[2][r + static_cast<long>(c) * rows] = v;
  if (e) strips.piece[3][r + static_cast<long>(c - cs) * rows] = v;
  if (n && w) corners.piece[0][r + c * width] = v;
  if (n && e) corners.piece[1][r + (c - cs) * width] = v;
  if (s && w) corners.piece[2][(r - rs) + c * width] = v;
  if (s && e) corners.piece[3][(r - rs) + (c - cs) * width] = v;
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw DeviceError(std::string("CUDA stencil: ") + what + ": " + cudaGetErrorString(status));
}

// The two extended tiles, per driver thread (one per device, so per device too); grown when a
// larger tile comes. cudaFree waits for the device, so the kernels still using the old one finish
// first.
struct Scratch {
  double* data = nullptr;
  std::size_t values = 0;
  int device = -1;
  ~Scratch() {
    if (data) cudaFree(data);
  }
  double* reserve(std::size_t need) {
    int current = 0;
    check(cudaGetDevice(&current), "cudaGetDevice");
    if (need <= values && current == device) return data;
    if (data) cudaFree(data);
    data = nullptr;
    values = 0;
    check(cudaMalloc(reinterpret_cast<void**>(&data), need * sizeof(double)),
          "cudaMalloc (scratch)");
    values = need;
    device = current;
    return data;
  }
};

dim3 grid_for(int rows, int cols) { return dim3((rows + 31) / 32, (cols + 7) / 8); }

}  // namespace

void cuda_jacobi_deep_enqueue(void* stream_ptr, const DeepTiles& t, const Coefficients& c) {
  thread_local Scratch scratch;
  const Extended e = extended(t);
  double* x = scratch.reserve(2 * static_cast<std::size_t>(e.size()));
  double* y = x + e.size();
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  const dim3 block(32, 8);
  Pieces strips{}, corners{};
  OutPieces out_strips{}, out_corners{};
  for (int k = 0; k < 4; ++k) {
    strips.piece[k] = static_cast<const double*>(t.strips[k]);
    corners.piece[k] = static_cast<const double*>(t.corners[k]);
    out_strips.piece[k] = static_cast<double*>(t.out_strips[k]);
    out_corners.piece[k] = static_cast<double*>(t.out_corners[k]);
  }
  jacobi_gather<<<grid_for(e.rows, e.cols), block, 0, stream>>>(
      x, y, static_cast<const double*>(t.in), strips, corners, t.rows, t.cols, t.bits, t.width);
  for (int step = 1; step < t.depth; ++step) {
    const Span rows = sweep_span(e.rows, e.north, e.south, step);
    const Span cols = sweep_span(e.cols, e.west, e.east, step);
    if (rows.count() > 0 && cols.count() > 0)
      jacobi_sweep<<<grid_for(rows.count(), cols.count()), block, 0, stream>>>(
          x, y, e.rows, rows.lo, cols.lo, rows.count(), cols.count(), c.c0, c.c1);
    std::swap(x, y);
  }
  jacobi_last<<<grid_for(t.rows, t.cols), block, 0, stream>>>(x, static_cast<double*>(t.out),
                                                              out_strips, out_corners, t.rows,
                                                              t.cols, t.bits, t.width, c.c0, c.c1);
  check(cudaGetLastError(), "launch failed");
}

}  // namespace conveyor::apps::stencil
