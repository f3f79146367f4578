#pragma once
// What a "jacobi" task carries besides its buffers (TaskContext::args, at most 64 bytes): the
// coefficients, and which neighbour tiles follow the input tile among its buffers.
#include "stencil/device_tiles.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

struct TaskArgs {
  double c0 = 0, c1 = 0;
  int bits = 0;  ///< NeighbourBits of the neighbours present
  Coefficients coefficients() const { return {c0, c1}; }
};

}  // namespace conveyor::apps::stencil
