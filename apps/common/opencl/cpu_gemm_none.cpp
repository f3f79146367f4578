// Built without OpenCL: the CPU devices' gemm cannot be enqueued.
#include "common/opencl_cpu_gemm.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::common {

void opencl_cpu_gemm_enqueue(void*, void*, std::size_t, bool, bool, int, int, int, double, void*,
                             std::size_t, int, void*, std::size_t, int, double, void*, std::size_t,
                             int) {
  throw Error("OpenCL gemm: built without OpenCL");
}

}  // namespace conveyor::apps::common
