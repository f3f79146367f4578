// Built without the CUDA toolkit: the CUDA stencil kernel does not exist and says so.
#include "conveyor/error.hpp"
#include "stencil/cuda/stencil_cuda_kernels.hpp"

namespace conveyor::apps::stencil {

bool cuda_kernels_available() { return false; }

void cuda_jacobi_enqueue(void*, const DeviceTiles&, const Coefficients&) {
  throw Error("stencil: built without CUDA");
}

void cuda_jacobi_deep_enqueue(void*, const DeepTiles&, const Coefficients&) {
  throw Error("stencil: built without CUDA");
}

}  // namespace conveyor::apps::stencil
