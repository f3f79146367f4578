// The "jacobi" codelet: decoding a task's buffers (the layout halo.hpp lists) into tiles and
// strips, for each kind of worker.
#include <cstddef>
#include <string>

#include "common/narrow.hpp"
#include "conveyor/error.hpp"
#include "stencil/cpu_deep_kernel.hpp"
#include "stencil/cpu_kernel.hpp"
#include "stencil/cuda/stencil_cuda_kernels.hpp"
#include "stencil/deep_tiles.hpp"
#include "stencil/device_tiles.hpp"
#include "stencil/halo.hpp"
#include "stencil/opencl/stencil_opencl_kernels.hpp"
#include "stencil/stencil.hpp"
#include "stencil/task_args.hpp"

namespace conveyor::apps::stencil {
namespace {

using common::as_int;

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

// A task of temporal blocking (width > 1): every buffer by the layout of halo.hpp, strips and
// corners included, with the tiles' leading dimensions (the user's on CPUs, rows on devices).
DeepTiles deep_tiles(const TaskContext& t, const TaskArgs& a) {
  DeepTiles d;
  d.out = t.buffer(0).ptr;
  d.in = t.buffer(1).ptr;
  d.rows = as_int(t.buffer(1).rows);
  d.cols = as_int(t.buffer(1).cols);
  d.out_ld = static_cast<long>(t.buffer(0).ld);
  d.in_ld = static_cast<long>(t.buffer(1).ld);
  d.bits = a.bits;
  d.width = a.width;
  d.depth = a.depth;
  for (int side : kSides) {
    d.strips[side_index(side)] = pointer(t, neighbour_strip_index(a.bits, side));
    d.out_strips[side_index(side)] = pointer(t, own_strip_index(a.bits, side));
  }
  for (int k : kCorners) {
    d.corners[k] = pointer(t, neighbour_corner_index(a.bits, k, a.width));
    d.out_corners[k] = pointer(t, own_corner_index(a.bits, k, a.width));
  }
  return d;
}

void run_on_cpu(const TaskContext& t) {
  const TaskArgs a = t.args<TaskArgs>();
  if (a.width > 1) {
    cpu_jacobi_deep(a.coefficients(), deep_tiles(t, a));
    return;
  }
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
      if (a.width > 1)
        opencl_jacobi_deep_enqueue(t.opencl_queue(), t.opencl_kernel(), deep_tiles(t, a),
                                   a.coefficients());
      else
        opencl_jacobi_enqueue(t.opencl_queue(), t.opencl_kernel(), device_tiles(t, a.bits),
                              a.coefficients());
    });
  }
  if (cuda_kernels_available())
    jacobi.cuda([](const TaskContext& t) {
      const TaskArgs a = t.args<TaskArgs>();
      if (a.width > 1)
        cuda_jacobi_deep_enqueue(t.cuda_stream(), deep_tiles(t, a), a.coefficients());
      else
        cuda_jacobi_enqueue(t.cuda_stream(), device_tiles(t, a.bits), a.coefficients());
    });
  else if (simulated)
    // A simulated platform's devices are of the CUDA kind (docs/simulation.md) and run the CPU
    // implementation at the modelled end, so the stencil is placeable there without a toolkit.
    jacobi.cuda([](const TaskContext&) {
      throw Error("stencil: this build has no CUDA kernels (only simulated devices take them)");
    });
  // Six flops per cell (two multiplies, four adds) and sweep: for the model scheduler's prior and
  // the simulated platforms' "jacobi" rate. The halo recomputed by temporal blocking is not
  // counted (useful work only).
  jacobi.flops([](const TaskContext& t) {
    return 6.0 * t.args<TaskArgs>().depth * static_cast<double>(t.buffer(0).rows) *
           static_cast<double>(t.buffer(0).cols);
  });
}

}  // namespace conveyor::apps::stencil
