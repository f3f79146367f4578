// Built when CMake found no LAPACKE: QR has no loop fallback (its kernels are LAPACK's blocked
// reflectors), so `conveyor qr` refuses to run (qr_run.cpp's validate) and a kernel reached anyway
// says why.
#include "conveyor/error.hpp"
#include "qr/qr_cpu_kernels.hpp"

namespace conveyor::apps::qr {

bool cpu_kernels_available() { return false; }
std::string cpu_kernel_library() { return "none (built without LAPACKE)"; }

namespace {
[[noreturn]] void missing() {
  throw Error("qr: this build has no LAPACKE, which the QR tile kernels need");
}
}  // namespace

template <typename T>
void cpu_geqrt(int, int, int, T*, int, T*, int) {
  missing();
}
template <typename T>
void cpu_gemqrt(bool, int, int, int, int, const T*, int, const T*, int, T*, int) {
  missing();
}
template <typename T>
void cpu_tpqrt(int, int, int, T*, int, T*, int, T*, int) {
  missing();
}
template <typename T>
void cpu_tpmqrt(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, int) {
  missing();
}

template <typename T>
void cpu_ttqrt(int, int, int, T*, int, T*, int, T*, int) {
  missing();
}
template <typename T>
void cpu_ttmqrt(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, int) {
  missing();
}

void host_gram_upper(int, int, const double*, int, double*, int) { missing(); }
void host_times_upper(int, int, const double*, int, double*, int) { missing(); }

#define CONVEYOR_INSTANTIATE(T)                                                                    \
  template void cpu_geqrt<T>(int, int, int, T*, int, T*, int);                                     \
  template void cpu_gemqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int);    \
  template void cpu_tpqrt<T>(int, int, int, T*, int, T*, int, T*, int);                            \
  template void cpu_tpmqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, \
                              int);                                                                \
  template void cpu_ttqrt<T>(int, int, int, T*, int, T*, int, T*, int);                            \
  template void cpu_ttmqrt<T>(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, \
                              int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
