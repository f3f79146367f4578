// Built without the CUDA toolkit: the CUDA tile kernels do not exist and say so.
#include "cholesky/cuda/cholesky_cuda_kernels.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {
[[noreturn]] void absent() { throw Error("cholesky: built without CUDA (cuBLAS/cuSOLVER)"); }
}  // namespace

bool cuda_kernels_available() { return false; }

template <typename T>
void cuda_potrf(void*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_trsm(void*, int, int, const T*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_syrk(void*, int, int, const T*, int, T*, int) {
  absent();
}
template <typename T>
void cuda_gemm(void*, int, int, int, const T*, int, const T*, int, T*, int) {
  absent();
}

#define CONVEYOR_INSTANTIATE(T)                                        \
  template void cuda_potrf<T>(void*, int, T*, int);                    \
  template void cuda_trsm<T>(void*, int, int, const T*, int, T*, int); \
  template void cuda_syrk<T>(void*, int, int, const T*, int, T*, int); \
  template void cuda_gemm<T>(void*, int, int, int, const T*, int, const T*, int, T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::cholesky
