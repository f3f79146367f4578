// Built without the CUDA toolkit: the CUDA QR kernels do not exist and say so.
#include "conveyor/error.hpp"
#include "qr/cuda/qr_cuda_kernels.hpp"

namespace conveyor::apps::qr {
namespace {
[[noreturn]] void absent() { throw Error("qr: built without CUDA"); }
}  // namespace

bool cuda_kernels_available() { return false; }

template <typename T>
void cuda_geqrt(void*, int, int, int, T*, int, T*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_gemqrt(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_tpqrt(void*, int, int, int, T*, int, T*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_tpmqrt(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, int) {
  absent();
}

#define CONVEYOR_INSTANTIATE(T)                                                                   \
  template void cuda_geqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_gemqrt<T>(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, \
                               int);                                                              \
  template void cuda_tpqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_tpmqrt<T>(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, \
                               int, T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
