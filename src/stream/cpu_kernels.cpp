// Picks the CPU kernel set at run time, so that one generic build uses the best SIMD the CPU has.
#include "stream/cpu_kernels.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "stream/cpu_kernels_impl.hpp"

namespace conveyor::stream {

std::string_view to_string(Isa isa) {
  switch (isa) {
    case Isa::Portable:
      return "portable";
    case Isa::Avx2:
      return "avx2";
    case Isa::Avx512:
      return "avx512f";
  }
  return "?";
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> isas{Isa::Portable};
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) isas.push_back(Isa::Avx2);
  if (__builtin_cpu_supports("avx512f")) isas.push_back(Isa::Avx512);
#endif
  return isas;
}

const CpuKernels& tuned_kernels(Isa isa) {
  for (Isa supported : supported_isas()) {
    if (supported != isa) continue;
    switch (isa) {
      case Isa::Portable:
        return detail::kPortable;
#if defined(__x86_64__) || defined(__i386__)
      case Isa::Avx2:
        return detail::kAvx2;
      case Isa::Avx512:
        return detail::kAvx512;
#else
      default:
        break;
#endif
    }
  }
  throw Error(fmt::format("this CPU cannot run the {} STREAM kernels", to_string(isa)));
}

const CpuKernels& cpu_kernels(StreamVariant variant) {
  if (variant == StreamVariant::Standard) return detail::kStandard;
  static const CpuKernels& best = tuned_kernels(supported_isas().back());
  return best;
}

}  // namespace conveyor::stream
