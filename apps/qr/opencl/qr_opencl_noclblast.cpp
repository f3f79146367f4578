// Built without CLBlast: the QR updates run the own kernels only (common::use_clblast is false).
#include "conveyor/error.hpp"
#include "qr/opencl/qr_opencl_clblast.hpp"

namespace conveyor::apps::qr {

void clblast_gemqrt_enqueue(void*, void*, std::size_t, bool, int, int, int, int, ClMatrix, ClMatrix,
                            ClMatrix) {
  throw Error("qr: built without CLBlast");
}
void clblast_tpmqrt_enqueue(void*, void*, std::size_t, bool, int, int, int, int, ClMatrix, ClMatrix,
                            ClMatrix, ClMatrix) {
  throw Error("qr: built without CLBlast");
}

}  // namespace conveyor::apps::qr
