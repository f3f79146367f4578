#pragma once
/// The OpenCL kernel of one tile of one Jacobi sweep (double precision: needs cl_khr_fp64).
///
///   program.source = opencl_jacobi_source();  program.kernel = kOpenclJacobiKernel;
///   opencl_jacobi_enqueue(queue, kernel, tiles, coeffs);   // returns at once
///   opencl_jacobi_deep_enqueue(queue, kernel, deep, coeffs);   // temporal blocking
#include <string_view>

#include "stencil/deep_tiles.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

inline constexpr const char* kOpenclJacobiKernel = "jacobi_tile";

/// True when Conveyor was built with OpenCL; opencl_jacobi_enqueue throws Error otherwise.
bool opencl_kernels_available();

/// The OpenCL C source (plain text, present in every build).
std::string_view opencl_jacobi_source();

/// Sets the arguments of `kernel` (a cl_kernel built from opencl_jacobi_source()) and enqueues it
/// on `queue` (a cl_command_queue), one work-item per cell; the pointers in `tiles` are cl_mem.
/// Does not wait.
void opencl_jacobi_enqueue(void* queue, void* kernel, const DeviceTiles& tiles,
                           const Coefficients& c);

/// Temporal blocking: tiles.depth sweeps of one tile (deep_tiles.hpp), on `queue` (in order): the
/// extended tile gathered by rectangle copies, depth - 1 sweeps over it, the last sweep into the
/// tile and its own strips and corners. `kernel` is the codelet's jacobi_tile, whose program holds
/// the other kernels. The extended tile lives in two scratch buffers kept per queue (grown when a
/// larger tile comes; outside the runtime's --device-memory count). Does not wait.
void opencl_jacobi_deep_enqueue(void* queue, void* kernel, const DeepTiles& tiles,
                                const Coefficients& c);

}  // namespace conveyor::apps::stencil
