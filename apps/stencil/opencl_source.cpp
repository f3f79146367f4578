// The OpenCL C source of the Jacobi tile kernel (plain text; built with or without OpenCL).
#include "stencil/opencl_kernels.hpp"

namespace conveyor::apps::stencil {

// One work-item per cell, dimension 0 down a column (the contiguous direction, so loads and stores
// are coalesced on GPUs and vectorise on PoCL). FP_CONTRACT OFF: OpenCL C may fuse a * b + c into
// an FMA by default, which rounds once instead of twice and would break the exact agreement with
// the host's point() (point.hpp). The neighbours' values across the tile's edges come from their
// strips (contiguous: a row strip holds cols values, a column strip rows); the work-items on the
// tile's edges also write their value into the tile's own strips. Absent neighbours and strips
// arrive as the tile itself (in or out) and are never touched.
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

__kernel void jacobi_tile(__global double* out, __global const double* in,
                          __global const double* north, __global const double* south,
                          __global const double* west, __global const double* east,
                          __global double* out_north, __global double* out_south,
                          __global double* out_west, __global double* out_east,
                          const int rows, const int cols, const int bits,
                          const double c0, const double c1) {
  const int r = get_global_id(0);
  const int c = get_global_id(1);
  if (r >= rows || c >= cols) return;
  const long at = r + (long)c * rows;
  const double x = in[at];
  double v = x;
  if (!((r == 0 && !(bits & NORTH)) || (r == rows - 1 && !(bits & SOUTH)) ||
        (c == 0 && !(bits & WEST)) || (c == cols - 1 && !(bits & EAST)))) {
    const double up = r > 0 ? in[at - 1] : north[c];
    const double down = r < rows - 1 ? in[at + 1] : south[c];
    const double left = c > 0 ? in[at - rows] : west[r];
    const double right = c < cols - 1 ? in[at + rows] : east[r];
    v = c0 * x + c1 * (((up + down) + left) + right);
  }
  out[at] = v;
  if (r == 0 && (bits & NORTH)) out_north[c] = v;
  if (r == rows - 1 && (bits & SOUTH)) out_south[c] = v;
  if (c == 0 && (bits & WEST)) out_west[r] = v;
  if (c == cols - 1 && (bits & EAST)) out_east[r] = v;
}
)CLC";

std::string_view opencl_jacobi_source() { return kSource; }

}  // namespace conveyor::apps::stencil
