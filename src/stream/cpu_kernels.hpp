#pragma once
// The STREAM kernels on host memory, one function per kernel over a sub-range, so that a team of
// threads (or a staged pipeline that feeds blocks from another mover) can call them on any
// [begin, begin + n) slice. Pointers need no alignment and n may be anything, including 0.
//
// `standard` is plain C++ loops, as STREAM is written; `tuned` is vectorised with explicit SIMD and
// writes with non-temporal (cache-bypassing) stores, picked at run time for the best instruction
// set the CPU has (AVX-512F, AVX2, else a portable loop). Tuned kernels end with a store fence, so
// their results are visible to other threads once the caller has synchronised with them.
//
//   const CpuKernels& k = cpu_kernels(StreamVariant::Tuned);
//   k.triad(a + begin, b + begin, c + begin, 3.0, end - begin);
#include <cstddef>
#include <string_view>
#include <vector>

#include "conveyor/stream.hpp"

namespace conveyor::stream {

/// The instruction-set level of a kernel set. Portable is the plain fallback used on any CPU.
enum class Isa { Portable, Avx2, Avx512 };
std::string_view to_string(Isa isa);

struct CpuKernels {
  // Argument order follows the STREAM statement: destination first.
  void (*copy)(double* c, const double* a, std::size_t n);                  // c = a
  void (*scale)(double* b, const double* c, double s, std::size_t n);       // b = s * c
  void (*add)(double* c, const double* a, const double* b, std::size_t n);  // c = a + b
  void (*triad)(double* a, const double* b, const double* c, double s,
                std::size_t n);                                    // a = b + s*c
  double (*dot)(const double* a, const double* b, std::size_t n);  // sum(a * b)
  Isa isa;
  bool streaming_stores;  ///< writes bypass the caches (non-temporal stores)
};

/// The kernels of one variant: the standard loops, or the tuned set for this CPU's best ISA.
const CpuKernels& cpu_kernels(StreamVariant variant);
/// The tuned set for one ISA level; throws Error when this CPU cannot run it (tests use this to
/// cover every level the machine has).
const CpuKernels& tuned_kernels(Isa isa);
/// The tuned ISA levels this CPU can run, best last.
std::vector<Isa> supported_isas();

}  // namespace conveyor::stream
