// Built without CLBlast: the tile kernels run the own kernels only (common::use_clblast is false).
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {
[[noreturn]] void missing() { throw Error("cholesky: built without CLBlast"); }
}  // namespace

void clblast_syrk_enqueue(void*, std::size_t, int, int, void*, int, void*, int) { missing(); }
void clblast_trsm_enqueue(void*, std::size_t, int, int, void*, int, void*, int) { missing(); }

}  // namespace conveyor::apps::cholesky
