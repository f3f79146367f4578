#pragma once
/// The CUDA kernel of one tile of one Jacobi sweep, enqueued on the caller's stream (passed as
/// void*, a cudaStream_t, so that this header needs no CUDA include). Compiled by nvcc when CMake
/// found the CUDA toolkit; not yet run on a GPU (docs/stencil.md).
///
///   cuda_jacobi_enqueue(stream, tiles, coeffs);   // returns at once
#include "stencil/deep_tiles.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// True when Conveyor was built with the CUDA toolkit; cuda_jacobi_enqueue throws Error otherwise.
bool cuda_kernels_available();

/// One thread per cell; the pointers in `tiles` are device pointers. Does not wait; a launch
/// error is thrown as DeviceError.
void cuda_jacobi_enqueue(void* stream, const DeviceTiles& tiles, const Coefficients& c);

/// Temporal blocking: tiles.depth sweeps of one tile (deep_tiles.hpp) as the OpenCL kernels do
/// them (gather, depth - 1 sweeps over the extended tile, the last sweep into the tile, its strips
/// and corners), the extended tile in a scratch kept per driver thread. Compiled, not yet run on a
/// GPU. Does not wait.
void cuda_jacobi_deep_enqueue(void* stream, const DeepTiles& tiles, const Coefficients& c);

}  // namespace conveyor::apps::stencil
