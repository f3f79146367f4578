// Built without CLBlast: the gemm runs the own kernels only (common::use_clblast is false).
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

void clblast_gemm_enqueue(void*, std::size_t, int, int, int, void*, int, void*, int, void*, int) {
  throw Error("cholesky: built without CLBlast");
}

}  // namespace conveyor::apps::cholesky
