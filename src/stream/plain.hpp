#pragma once
// The CPU-only reference of the staged pipeline: far arrays (2 MiB aligned, huge-page advised) and
// the plain kernel over them with the pipeline's chunking. Shared by the sweep, which compares
// against it, and by the probe, which records its rate for the pipeline's model.
#include <cstddef>
#include <cstdlib>
#include <memory>

#include "conveyor/pipeline.hpp"

namespace conveyor::core {
class ThreadTeam;
}

namespace conveyor::stream {

struct FreeArray {
  void operator()(double* p) const { std::free(p); }
};
using HostArray = std::unique_ptr<double[], FreeArray>;

/// n doubles, 2 MiB aligned, not touched. Throws Error when the memory is not there.
HostArray allocate_array(std::size_t n);

/// a = 1, b = 2, c = 0.5, each thread of a team of `threads` writing its own chunk (first touch).
void fill_arrays(double* a, double* b, double* c, std::size_t n, int threads,
                 ThreadBinding binding);

/// The plain kernel on the far arrays, one contiguous chunk per team member (whole cache lines, as
/// Pipeline cuts them); returns the sum of the partial results (the dot product for Dot).
double plain_run(core::ThreadTeam& team, const BlockKernel& kernel, const BlockArrays& arrays);

}  // namespace conveyor::stream
