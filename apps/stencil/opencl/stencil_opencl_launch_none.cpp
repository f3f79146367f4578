// Built without OpenCL: the OpenCL stencil kernel cannot be enqueued, and says so.
#include "conveyor/error.hpp"
#include "stencil/opencl/stencil_opencl_kernels.hpp"

namespace conveyor::apps::stencil {

bool opencl_kernels_available() { return false; }

void opencl_jacobi_enqueue(void*, void*, const DeviceTiles&, const Coefficients&) {
  throw Error("stencil: built without OpenCL");
}

void opencl_jacobi_deep_enqueue(void*, void*, const DeepTiles&, const Coefficients&) {
  throw Error("stencil: built without OpenCL");
}

}  // namespace conveyor::apps::stencil
