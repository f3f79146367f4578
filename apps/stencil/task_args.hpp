#pragma once
// What a "jacobi" task carries besides its buffers (TaskContext::args, at most 64 bytes): the
// coefficients, which neighbour tiles follow the input tile among its buffers, and with temporal
// blocking how many sweeps the task does and how wide its strips are.
#include "stencil/device_tiles.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

struct TaskArgs {
  double c0 = 0, c1 = 0;
  int bits = 0;   ///< NeighbourBits of the neighbours present
  int depth = 1;  ///< sweeps this task does (the last round of a run may do fewer than width)
  int width = 1;  ///< strip width, the run's --temporal-block: 1 = one sweep, no corners
  Coefficients coefficients() const { return {c0, c1}; }
};

}  // namespace conveyor::apps::stencil
