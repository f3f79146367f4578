// The OpenCL C source of the Jacobi tile kernel (plain text; built with or without OpenCL).
#include "stencil/opencl_kernels.hpp"

namespace conveyor::apps::stencil {

// One work-item per cell, dimension 0 down a column (the contiguous direction, so loads and stores
// are coalesced on GPUs and vectorise on PoCL). FP_CONTRACT OFF: OpenCL C may fuse a * b + c into
// an FMA by default, which rounds once instead of twice and would break the exact agreement with
// the host's point() (point.hpp). Absent neighbours arrive as the tile itself and are never read.
constexpr const char* kSource = R"CLC(
#ifdef cl_khr_fp64
#  pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#  error "the stencil needs double precision (cl_khr_fp64), which this device lacks"
#endif
#pragma OPENCL FP_CONTRACT OFF

#define NORTH 1
#define SOUTH 2
#define WEST 4
#define EAST 8

__kernel void jacobi_tile(__global double* restrict out, __global const double* restrict in,
                          __global const double* north, __global const double* south,
                          __global const double* west, __global const double* east,
                          const int rows, const int cols, const int north_rows,
                          const int south_rows, const int west_cols, const int bits,
                          const double c0, const double c1) {
  const int r = get_global_id(0);
  const int c = get_global_id(1);
  if (r >= rows || c >= cols) return;
  const long at = r + (long)c * rows;
  const double x = in[at];
  if ((r == 0 && !(bits & NORTH)) || (r == rows - 1 && !(bits & SOUTH)) ||
      (c == 0 && !(bits & WEST)) || (c == cols - 1 && !(bits & EAST))) {
    out[at] = x;
    return;
  }
  const double up = r > 0 ? in[at - 1] : north[(north_rows - 1) + (long)c * north_rows];
  const double down = r < rows - 1 ? in[at + 1] : south[(long)c * south_rows];
  const double left = c > 0 ? in[at - rows] : west[r + (long)(west_cols - 1) * rows];
  const double right = c < cols - 1 ? in[at + rows] : east[r];
  out[at] = c0 * x + c1 * (((up + down) + left) + right);
}
)CLC";

std::string_view opencl_jacobi_source() { return kSource; }

}  // namespace conveyor::apps::stencil
