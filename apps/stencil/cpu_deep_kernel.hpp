#pragma once
/// The CPU implementation of a task of temporal blocking: `depth` sweeps on one tile at once, from
/// the neighbours' strips and the diagonal neighbours' corners of width D (halo.hpp,
/// deep_tiles.hpp). The halo cells are recomputed redundantly (ghost zones): the extended tile is
/// gathered into a per-worker scratch, swept depth - 1 times while its valid region shrinks by one
/// cell per sweep, and the last sweep writes the tile itself, then its own strips and corners.
/// Every cell takes point() (point.hpp) in the same order as the reference, so the result is exact.
///
///   DeepTiles t;  t.out = out; t.in = in; ... t.width = 3; t.depth = 3;
///   cpu_jacobi_deep(coeffs, t);
#include "stencil/deep_tiles.hpp"
#include "stencil/point.hpp"

namespace conveyor::apps::stencil {

/// Host pointers in `t`; strips and corners contiguous. Allocates only when this thread meets a
/// larger extended tile than before (the scratch is thread-local and kept).
void cpu_jacobi_deep(const Coefficients& c, const DeepTiles& t);

}  // namespace conveyor::apps::stencil
