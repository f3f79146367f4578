// Built without OpenCL: the OpenCL QR kernels cannot be enqueued, and say so.
#include "conveyor/error.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace conveyor::apps::qr {
namespace {
[[noreturn]] void missing() { throw Error("qr: built without OpenCL"); }
}  // namespace

bool opencl_kernels_available() { return false; }

void opencl_geqrt_enqueue(void*, void*, std::size_t, int, int, int, void*, int, void*, int, void*,
                          int) {
  missing();
}
void opencl_gemqrt_enqueue(void*, void*, std::size_t, bool, int, int, int, int, void*, int, void*,
                           int, void*, int) {
  missing();
}
void opencl_tpqrt_enqueue(void*, void*, std::size_t, int, int, int, void*, int, void*, int, void*,
                          int) {
  missing();
}
void opencl_tpmqrt_enqueue(void*, void*, std::size_t, bool, int, int, int, int, void*, int, void*,
                           int, void*, int, void*, int) {
  missing();
}

}  // namespace conveyor::apps::qr
