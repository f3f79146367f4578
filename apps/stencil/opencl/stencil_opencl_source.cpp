// The OpenCL C source of the Jacobi tile kernel (plain text; built with or without OpenCL).
#include "stencil/opencl/stencil_opencl_kernels.hpp"

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

/* Temporal blocking (D = width sweeps per task, docs/stencil.md): the extended tile (the tile and,
   where neighbours exist, their width-wide strips and the diagonal neighbours' width x width
   corners) is gathered into the scratch x by rectangle copies (stencil_opencl_deep_launch.cpp), swept
   depth - 1 times between x and y over the region still valid (it shrinks by one cell per sweep
   on the sides with a neighbour), and jacobi_last does the last sweep into the tile; its own strips
   and corners are copied from it by rectangle copies too. No store depends on a branch, so PoCL
   vectorises every kernel (jacobi_last wrote the strips and corners itself at first, under
   conditions: a 2048 grid in tiles of 512, 8 sweeps resident, took 0.29 s with D = 2 against
   0.06 s now). */

__kernel void jacobi_sweep(__global const double* x, __global double* y, const int ld,
                           const int row0, const int col0, const int count_rows,
                           const int count_cols, const double c0, const double c1) {
  const int i = get_global_id(0);
  const int j = get_global_id(1);
  if (i >= count_rows || j >= count_cols) return;
  const long at = (row0 + i) + (long)(col0 + j) * ld;
  y[at] = c0 * x[at] + c1 * (((x[at - 1] + x[at + 1]) + x[at - ld]) + x[at + ld]);
}

__kernel void jacobi_last(__global const double* x, __global double* out, const int rows,
                          const int cols, const int bits, const int width, const double c0,
                          const double c1) {
  const int r = get_global_id(0);
  const int c = get_global_id(1);
  if (r >= rows || c >= cols) return;
  const int hn = (bits & NORTH) ? width : 0, hs = (bits & SOUTH) ? width : 0;
  const int hw = (bits & WEST) ? width : 0;
  const int ld = hn + rows + hs;
  const long at = (r + hn) + (long)(c + hw) * ld;
  double v = x[at];
  if (!((r == 0 && !(bits & NORTH)) || (r == rows - 1 && !(bits & SOUTH)) ||
        (c == 0 && !(bits & WEST)) || (c == cols - 1 && !(bits & EAST))))
    v = c0 * v + c1 * (((x[at - 1] + x[at + 1]) + x[at - ld]) + x[at + ld]);
  out[r + (long)c * rows] = v;
}
)CLC";

std::string_view opencl_jacobi_source() { return kSource; }

}  // namespace conveyor::apps::stencil
