#pragma once
/// The QR updates (gemqrt, tpmqrt) in blocked WY form, for qr_opencl_launch.cpp: per block of ib
/// reflectors V_b with triangular factor T_b, W = V_b^T C, W = T_b^T W (T_b W for Q rather than
/// Q^T, the blocks then last first), C -= V_b W, as LAPACK's larfb does, so that their flops are
/// gemm calls: CLBlast's, or the register-blocked kernels for CPU devices (common::GemmPath).
/// Arguments as opencl_gemqrt_enqueue's and opencl_tpmqrt_enqueue's, each matrix a ClMatrix so
/// that the blocked panels can name the columns right of a panel; `kernel` is the codelet's, whose
/// program holds the element-wise helpers and the CPU gemm. Built with OpenCL only.
#include <cstddef>

#include "common/opencl/opencl_calls.hpp"
#include "common/opencl_blas.hpp"

namespace conveyor::apps::qr {

/// The status checks and kernel arguments of both QR launchers ("OpenCL qr: ..." errors).
inline constexpr common::OpenclCalls kCl{"OpenCL qr"};

/// A column-major matrix inside an OpenCL buffer: the cl_mem, the offset of its first entry and
/// its leading dimension, both in elements.
struct ClMatrix {
  void* mem;
  int off;
  int ld;
};

/// Whether the updates run through CLBlast by default (CONVEYOR_OPENCL_BLAS=auto) on devices other
/// than CPUs: measured faster than the one-column-per-work-item kernels on PoCL
/// (docs/results/clblast.md). On CPU devices the blocked form through the CPU gemm is faster than
/// both, and is the default there.
inline constexpr bool kClblastUpdatesByDefault = true;

/// One work-item per entry of a rows x cols range for the element-wise kernel `kernel` (its
/// arguments set), in work-groups of a fixed size (the range rounded up: the kernels skip entries
/// past it), so that a CPU driver, which compiles one variant per group size, compiles it once, in
/// the untimed warm-up.
void enqueue_entries(void* queue, void* kernel, int rows, int cols);

void blocked_gemqrt_enqueue(common::GemmPath path, void* queue, void* kernel, std::size_t elem_size,
                            bool transpose, int m, int n, int k, int ib, ClMatrix v, ClMatrix t,
                            ClMatrix c);
void blocked_tpmqrt_enqueue(common::GemmPath path, void* queue, void* kernel, std::size_t elem_size,
                            bool transpose, int m, int n, int k, int ib, ClMatrix v, ClMatrix t,
                            ClMatrix a, ClMatrix b);

}  // namespace conveyor::apps::qr
