// The "jacobi" codelet: decoding a task's buffers (the layout halo.hpp lists) into tiles and
// strips, for each kind of worker.
#include <cstddef>
#include <string>

#include "conveyor/error.hpp"
#include "stencil/cpu_kernel.hpp"
#include "stencil/cuda_kernels.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/halo.hpp"
#include "stencil/opencl_kernels.hpp"
#include "stencil/stencil.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

int as_int(std::size_t v) { return static_cast<int>(v); }

// The buffer's pointer (host pointer, cl_mem or device pointer), nullptr for index -1.
void* pointer(const TaskContext& t, int index) {
  return index < 0 ? nullptr : t.buffer(static_cast<std::size_t>(index)).ptr;
}

// The device view: buffer pointers (cl_mem or device pointers) and the shape the kernel needs.
DeviceTiles device_tiles(const TaskContext& t, int bits) {
  DeviceTiles d;
  d.out = t.buffer(0).ptr;
  d.in = t.buffer(1).ptr;
  d.rows = as_int(t.buffer(1).rows);
  d.cols = as_int(t.buffer(1).cols);
  d.north = pointer(t, neighbour_strip_index(bits, kNorth));
  d.south = pointer(t, neighbour_strip_index(bits, kSouth));
  d.west = pointer(t, neighbour_strip_index(bits, kWest));
  d.east = pointer(t, neighbour_strip_index(bits, kEast));
  d.out_north = pointer(t, own_strip_index(bits, kNorth));
  d.out_south = pointer(t, own_strip_index(bits, kSouth));
  d.out_west = pointer(t, own_strip_index(bits, kWest));
  d.out_east = pointer(t, own_strip_index(bits, kEast));
  return d;
}

void run_on_cpu(const TaskContext& t) {
  const TaskArgs a = t.args<TaskArgs>();
  const Buffer& in = t.buffer(1);
  auto read = [&](int side) {
    return static_cast<const double*>(pointer(t, neighbour_strip_index(a.bits, side)));
  };
  auto write = [&](int side) {
    return static_cast<double*>(pointer(t, own_strip_index(a.bits, side)));
  };
  cpu_jacobi_tile(a.coefficients(), t.data<double>(0), t.buffer(0).ld,
                  {t.data<const double>(1), in.rows, in.cols, in.ld},
                  {read(kNorth), read(kSouth), read(kWest), read(kEast)},
                  {write(kNorth), write(kSouth), write(kWest), write(kEast)});
}

}  // namespace

StencilCodelet::StencilCodelet(bool simulated) : jacobi(kCodeletName) {
  jacobi.cpu(run_on_cpu);
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
  else if (simulated)
    // A simulated platform's devices are of the CUDA kind (docs/simulation.md) and run the CPU
    // implementation at the modelled end, so the stencil is placeable there without a toolkit.
    jacobi.cuda([](const TaskContext&) {
      throw Error("stencil: this build has no CUDA kernels (only simulated devices take them)");
    });
  // Six flops per cell (two multiplies, four adds): for the model scheduler's prior and the
  // simulated platforms' "jacobi" rate.
  jacobi.flops([](const TaskContext& t) {
    return 6.0 * static_cast<double>(t.buffer(0).rows) * static_cast<double>(t.buffer(0).cols);
  });
}

}  // namespace conveyor::apps::stencil
