// STREAM's plain loops, and the portable fallback of the tuned variant for CPUs without a SIMD set
// Conveyor knows.
#include <cstddef>

#include "stream/cpu_kernels_impl.hpp"

// GCC turns a copy loop into a memcpy call; glibc's memcpy switches to non-temporal stores for
// large blocks, which would make the standard Copy a tuned one. Keep the loop a loop.
#if defined(__GNUC__) && !defined(__clang__)
#define CONVEYOR_PLAIN_LOOP __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define CONVEYOR_PLAIN_LOOP
#endif

namespace conveyor::stream::detail {
namespace {

CONVEYOR_PLAIN_LOOP void copy(double* __restrict c, const double* __restrict a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
}

void scale(double* __restrict b, const double* __restrict c, double s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) b[i] = s * c[i];
}

void add(double* __restrict c, const double* __restrict a, const double* __restrict b,
         std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
           std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

double dot(const double* __restrict a, const double* __restrict b, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// Without -ffast-math a single accumulator is a serial chain of adds; four independent partial sums
// let the loads run ahead.
double dot_unrolled(const double* __restrict a, const double* __restrict b, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

const CpuKernels kStandard{copy, scale, add, triad, dot, Isa::Portable, false};
const CpuKernels kPortable{copy, scale, add, triad, dot_unrolled, Isa::Portable, false};

}  // namespace conveyor::stream::detail
