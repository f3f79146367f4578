#pragma once
// The kernel sets behind cpu_kernels(): one per file, chosen at run time in cpu_kernels.cpp.
#include "stream/cpu_kernels.hpp"

namespace conveyor::stream::detail {

extern const CpuKernels kStandard;  // cpu_kernels_standard.cpp
extern const CpuKernels kPortable;  // cpu_kernels_standard.cpp
#if defined(__x86_64__) || defined(__i386__)
extern const CpuKernels kAvx2;    // cpu_kernels_x86.cpp
extern const CpuKernels kAvx512;  // cpu_kernels_x86.cpp
#endif

}  // namespace conveyor::stream::detail
