// Built without OpenCL: the OpenCL tile kernels cannot be enqueued, and say so.
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {
[[noreturn]] void missing() { throw Error("cholesky: built without OpenCL"); }
}  // namespace

bool opencl_kernels_available() { return false; }

void opencl_gemm_enqueue(void*, void*, std::size_t, int, int, int, void*, int, void*, int, void*,
                         int) {
  missing();
}
void opencl_syrk_enqueue(void*, void*, std::size_t, int, int, void*, int, void*, int) { missing(); }
void opencl_trsm_enqueue(void*, void*, std::size_t, int, int, void*, int, void*, int) { missing(); }

}  // namespace conveyor::apps::cholesky
