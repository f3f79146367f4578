// Built without OpenCL: the OpenCL gemm cannot be enqueued, and says so.
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

bool opencl_kernels_available() { return false; }

void opencl_gemm_enqueue(void*, void*, std::size_t, int, int, int, void*, int, void*, int, void*,
                         int) {
  throw Error("cholesky: built without OpenCL");
}

}  // namespace conveyor::apps::cholesky
