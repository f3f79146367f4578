// Tuned STREAM kernels for x86-64: AVX2 and AVX-512F, compiled for those sets with target
// attributes so that a generic x86-64 build carries them and picks one at run time.
//
// Every writing kernel stores with non-temporal (streaming) stores: the destination lines are not
// read into the cache first (no write-allocate), so the bus moves exactly the bytes STREAM counts.
// Streaming stores need an aligned destination, so each kernel runs a scalar head until the
// destination is aligned, a vector body of one full cache line per step, and a scalar tail; sources
// are read unaligned. A store fence at the end orders the weakly-ordered streaming stores before
// whatever the caller does next (typically: tell the other threads it is done).
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "stream/cpu_kernels_impl.hpp"

#define CONVEYOR_AVX2 __attribute__((target("avx2")))
#define CONVEYOR_AVX512 __attribute__((target("avx512f")))

namespace conveyor::stream::detail {
namespace {

template <std::uintptr_t kAlign>
inline bool misaligned(const double* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & (kAlign - 1)) != 0;
}

// ---- AVX2: 4 doubles per register, two registers (one 64-byte line) per step.

CONVEYOR_AVX2 void copy_avx2(double* c, const double* a, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<32>(c + i); ++i) c[i] = a[i];
  for (; i + 8 <= n; i += 8) {
    __m256d x0 = _mm256_loadu_pd(a + i), x1 = _mm256_loadu_pd(a + i + 4);
    _mm256_stream_pd(c + i, x0);
    _mm256_stream_pd(c + i + 4, x1);
  }
  for (; i < n; ++i) c[i] = a[i];
  _mm_sfence();
}

CONVEYOR_AVX2 void scale_avx2(double* b, const double* c, double s, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<32>(b + i); ++i) b[i] = s * c[i];
  const __m256d vs = _mm256_set1_pd(s);
  for (; i + 8 <= n; i += 8) {
    __m256d x0 = _mm256_mul_pd(vs, _mm256_loadu_pd(c + i));
    __m256d x1 = _mm256_mul_pd(vs, _mm256_loadu_pd(c + i + 4));
    _mm256_stream_pd(b + i, x0);
    _mm256_stream_pd(b + i + 4, x1);
  }
  for (; i < n; ++i) b[i] = s * c[i];
  _mm_sfence();
}

CONVEYOR_AVX2 void add_avx2(double* c, const double* a, const double* b, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<32>(c + i); ++i) c[i] = a[i] + b[i];
  for (; i + 8 <= n; i += 8) {
    __m256d x0 = _mm256_add_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i));
    __m256d x1 = _mm256_add_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4));
    _mm256_stream_pd(c + i, x0);
    _mm256_stream_pd(c + i + 4, x1);
  }
  for (; i < n; ++i) c[i] = a[i] + b[i];
  _mm_sfence();
}

CONVEYOR_AVX2 void triad_avx2(double* a, const double* b, const double* c, double s,
                              std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<32>(a + i); ++i) a[i] = b[i] + s * c[i];
  const __m256d vs = _mm256_set1_pd(s);
  for (; i + 8 <= n; i += 8) {
    __m256d x0 = _mm256_add_pd(_mm256_loadu_pd(b + i), _mm256_mul_pd(vs, _mm256_loadu_pd(c + i)));
    __m256d x1 =
        _mm256_add_pd(_mm256_loadu_pd(b + i + 4), _mm256_mul_pd(vs, _mm256_loadu_pd(c + i + 4)));
    _mm256_stream_pd(a + i, x0);
    _mm256_stream_pd(a + i + 4, x1);
  }
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
  _mm_sfence();
}

// Four independent accumulators hide the add latency; Dot writes nothing, so no fence.
CONVEYOR_AVX2 double dot_avx2(const double* a, const double* b, std::size_t n) {
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i)));
    s1 = _mm256_add_pd(s1, _mm256_mul_pd(_mm256_loadu_pd(a + i + 4), _mm256_loadu_pd(b + i + 4)));
    s2 = _mm256_add_pd(s2, _mm256_mul_pd(_mm256_loadu_pd(a + i + 8), _mm256_loadu_pd(b + i + 8)));
    s3 = _mm256_add_pd(s3, _mm256_mul_pd(_mm256_loadu_pd(a + i + 12), _mm256_loadu_pd(b + i + 12)));
  }
  __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, s);
  double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// ---- AVX-512F: 8 doubles per register, one 64-byte line per register.

CONVEYOR_AVX512 void copy_avx512(double* c, const double* a, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<64>(c + i); ++i) c[i] = a[i];
  for (; i + 16 <= n; i += 16) {
    __m512d x0 = _mm512_loadu_pd(a + i), x1 = _mm512_loadu_pd(a + i + 8);
    _mm512_stream_pd(c + i, x0);
    _mm512_stream_pd(c + i + 8, x1);
  }
  for (; i < n; ++i) c[i] = a[i];
  _mm_sfence();
}

CONVEYOR_AVX512 void scale_avx512(double* b, const double* c, double s, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<64>(b + i); ++i) b[i] = s * c[i];
  const __m512d vs = _mm512_set1_pd(s);
  for (; i + 16 <= n; i += 16) {
    __m512d x0 = _mm512_mul_pd(vs, _mm512_loadu_pd(c + i));
    __m512d x1 = _mm512_mul_pd(vs, _mm512_loadu_pd(c + i + 8));
    _mm512_stream_pd(b + i, x0);
    _mm512_stream_pd(b + i + 8, x1);
  }
  for (; i < n; ++i) b[i] = s * c[i];
  _mm_sfence();
}

CONVEYOR_AVX512 void add_avx512(double* c, const double* a, const double* b, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<64>(c + i); ++i) c[i] = a[i] + b[i];
  for (; i + 16 <= n; i += 16) {
    __m512d x0 = _mm512_add_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i));
    __m512d x1 = _mm512_add_pd(_mm512_loadu_pd(a + i + 8), _mm512_loadu_pd(b + i + 8));
    _mm512_stream_pd(c + i, x0);
    _mm512_stream_pd(c + i + 8, x1);
  }
  for (; i < n; ++i) c[i] = a[i] + b[i];
  _mm_sfence();
}

CONVEYOR_AVX512 void triad_avx512(double* a, const double* b, const double* c, double s,
                                  std::size_t n) {
  std::size_t i = 0;
  for (; i < n && misaligned<64>(a + i); ++i) a[i] = b[i] + s * c[i];
  const __m512d vs = _mm512_set1_pd(s);
  for (; i + 16 <= n; i += 16) {
    __m512d x0 = _mm512_add_pd(_mm512_loadu_pd(b + i), _mm512_mul_pd(vs, _mm512_loadu_pd(c + i)));
    __m512d x1 =
        _mm512_add_pd(_mm512_loadu_pd(b + i + 8), _mm512_mul_pd(vs, _mm512_loadu_pd(c + i + 8)));
    _mm512_stream_pd(a + i, x0);
    _mm512_stream_pd(a + i + 8, x1);
  }
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
  _mm_sfence();
}

CONVEYOR_AVX512 double dot_avx512(const double* a, const double* b, std::size_t n) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_add_pd(s0, _mm512_mul_pd(_mm512_loadu_pd(a + i), _mm512_loadu_pd(b + i)));
    s1 = _mm512_add_pd(s1, _mm512_mul_pd(_mm512_loadu_pd(a + i + 8), _mm512_loadu_pd(b + i + 8)));
    s2 = _mm512_add_pd(s2, _mm512_mul_pd(_mm512_loadu_pd(a + i + 16), _mm512_loadu_pd(b + i + 16)));
    s3 = _mm512_add_pd(s3, _mm512_mul_pd(_mm512_loadu_pd(a + i + 24), _mm512_loadu_pd(b + i + 24)));
  }
  __m512d s = _mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3));
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, s);
  double sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
               ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

const CpuKernels kAvx2{copy_avx2, scale_avx2, add_avx2, triad_avx2, dot_avx2, Isa::Avx2, true};
const CpuKernels kAvx512{copy_avx512, scale_avx512, add_avx512, triad_avx512,
                         dot_avx512,  Isa::Avx512,  true};

}  // namespace conveyor::stream::detail
#endif
