// The "jacobi" codelet: decoding a task's buffers into tiles, for each kind of worker.
#include <cstddef>
#include <string>

#include "stencil/cpu_kernel.hpp"
#include "stencil/cuda_kernels.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/opencl_kernels.hpp"
#include "stencil/stencil.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

int as_int(std::size_t v) { return static_cast<int>(v); }

// Buffers 2.. are the neighbours that exist, in the order north, south, west, east: the index of
// `bit`'s buffer, or -1 when that neighbour is absent.
int neighbour_index(int bits, int bit) {
  if (!(bits & bit)) return -1;
  int index = 2;
  for (int b = kNorth; b < bit; b <<= 1) index += (bits & b) ? 1 : 0;
  return index;
}

TileView host_tile(const TaskContext& t, int index) {
  if (index < 0) return {};
  const Buffer& b = t.buffer(static_cast<std::size_t>(index));
  return {t.data<const double>(static_cast<std::size_t>(index)), b.rows, b.cols, b.ld};
}

// The device view: buffer pointers (cl_mem or device pointers) and the shapes the kernel needs.
DeviceTiles device_tiles(const TaskContext& t, int bits) {
  DeviceTiles d;
  d.out = t.buffer(0).ptr;
  d.in = t.buffer(1).ptr;
  d.rows = as_int(t.buffer(1).rows);
  d.cols = as_int(t.buffer(1).cols);
  auto at = [&](int bit) -> const Buffer* {
    int i = neighbour_index(bits, bit);
    return i < 0 ? nullptr : &t.buffer(static_cast<std::size_t>(i));
  };
  if (const Buffer* b = at(kNorth)) d.north = b->ptr, d.north_rows = as_int(b->rows);
  if (const Buffer* b = at(kSouth)) d.south = b->ptr, d.south_rows = as_int(b->rows);
  if (const Buffer* b = at(kWest)) d.west = b->ptr, d.west_cols = as_int(b->cols);
  if (const Buffer* b = at(kEast)) d.east = b->ptr;
  return d;
}

}  // namespace

StencilCodelet::StencilCodelet() : jacobi(kCodeletName) {
  jacobi.cpu([](const TaskContext& t) {
    const TaskArgs a = t.args<TaskArgs>();
    cpu_jacobi_tile(a.coefficients(), t.data<double>(0), t.buffer(0).ld, host_tile(t, 1),
                    host_tile(t, neighbour_index(a.bits, kNorth)),
                    host_tile(t, neighbour_index(a.bits, kSouth)),
                    host_tile(t, neighbour_index(a.bits, kWest)),
                    host_tile(t, neighbour_index(a.bits, kEast)));
  });
  if (opencl_kernels_available()) {
    OpenclProgram program;
    program.source = std::string(opencl_jacobi_source());
    program.kernel = kOpenclJacobiKernel;
    jacobi.opencl(std::move(program), [](const TaskContext& t) {
      const TaskArgs a = t.args<TaskArgs>();
      opencl_jacobi_enqueue(t.opencl_queue(), t.opencl_kernel(), device_tiles(t, a.bits),
                            a.coefficients());
    });
  }
  if (cuda_kernels_available())
    jacobi.cuda([](const TaskContext& t) {
      const TaskArgs a = t.args<TaskArgs>();
      cuda_jacobi_enqueue(t.cuda_stream(), device_tiles(t, a.bits), a.coefficients());
    });
  // Six flops per cell (two multiplies, four adds): for the model scheduler's prior.
  jacobi.flops([](const TaskContext& t) {
    return 6.0 * static_cast<double>(t.buffer(0).rows) * static_cast<double>(t.buffer(0).cols);
  });
}

}  // namespace conveyor::apps::stencil
