// Built without CLBlast: clblast_gemm_enqueue's stand-in (common::use_clblast is false then).
#include <string>

#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::common {

void clblast_gemm_enqueue(const char* who, void*, std::size_t, bool, bool, int, int, int, double,
                          void*, std::size_t, int, void*, std::size_t, int, double, void*,
                          std::size_t, int) {
  throw Error(std::string(who) + ": built without CLBlast");
}

}  // namespace conveyor::apps::common
