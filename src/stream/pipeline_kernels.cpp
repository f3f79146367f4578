// The STREAM kernels as block kernels for Pipeline: the CPU kernels of src/stream/cpu_kernels.hpp
// applied to one block, with the STREAM statements' arrays mapped to in0 / in1 / out.
#include "conveyor/pipeline.hpp"
#include "stream/cpu_kernels.hpp"

namespace conveyor {

BlockKernel stream_block_kernel(StreamKernel kernel, StreamVariant variant, double scalar) {
  const stream::CpuKernels& k = stream::cpu_kernels(variant);
  switch (kernel) {
    case StreamKernel::Copy:  // c = a
      return {1, true, [&k](const double* a, const double*, double* c, std::size_t n) {
                k.copy(c, a, n);
                return 0.0;
              }};
    case StreamKernel::Scale:  // b = s * c
      return {1, true, [&k, scalar](const double* c, const double*, double* b, std::size_t n) {
                k.scale(b, c, scalar, n);
                return 0.0;
              }};
    case StreamKernel::Add:  // c = a + b
      return {2, true, [&k](const double* a, const double* b, double* c, std::size_t n) {
                k.add(c, a, b, n);
                return 0.0;
              }};
    case StreamKernel::Triad:  // a = b + s * c
      return {2, true, [&k, scalar](const double* b, const double* c, double* a, std::size_t n) {
                k.triad(a, b, c, scalar, n);
                return 0.0;
              }};
    case StreamKernel::Dot:  // sum(a * b)
      return {2, false, [&k](const double* a, const double* b, double*, std::size_t n) {
                return k.dot(a, b, n);
              }};
  }
  throw Error("stream_block_kernel: unknown kernel");
}

BlockArrays stream_block_arrays(StreamKernel kernel, double* a, double* b, double* c,
                                std::size_t n) {
  switch (kernel) {
    case StreamKernel::Copy:
      return {a, nullptr, c, n};
    case StreamKernel::Scale:
      return {c, nullptr, b, n};
    case StreamKernel::Add:
      return {a, b, c, n};
    case StreamKernel::Triad:
      return {b, c, a, n};
    case StreamKernel::Dot:
      return {a, b, nullptr, n};
  }
  throw Error("stream_block_arrays: unknown kernel");
}

}  // namespace conveyor
