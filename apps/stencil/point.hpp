#pragma once
/// The one update of the Jacobi 5-point stencil, shared by every implementation that runs on the
/// host (the CPU tile kernel, the sequential reference, the OpenMP peer in bench/stencil), so that
/// they compute the very same arithmetic in the very same order and agree bit for bit. The OpenCL
/// and CUDA kernels spell out the same expression with contraction into FMA turned off.
///
///   out = point(c, x[r], x[r - 1], x[r + 1], left[r], right[r]);
namespace conveyor::apps::stencil {

/// out = c0 * centre + c1 * (north + south + west + east). Defaults: a weighted Jacobi step for
/// Laplace's equation (the weights sum to 1, so values stay within the initial range).
struct Coefficients {
  double c0 = 0.5;
  double c1 = 0.125;
};

/// Summed left to right, ((north + south) + west) + east: the order every implementation uses.
/// No FMA: the project builds in ISO C++ mode, where GCC does not contract (-ffp-contract=off), and
/// the device kernels turn contraction off themselves.
inline double point(const Coefficients& c, double centre, double north, double south, double west,
                    double east) {
  return c.c0 * centre + c.c1 * (((north + south) + west) + east);
}

}  // namespace conveyor::apps::stencil
