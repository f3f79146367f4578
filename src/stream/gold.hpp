#pragma once
// Gold values as STREAM computes them: every element of an array holds the same value, so the
// kernel sequence is replayed on three scalars and each array is compared with its scalar.
#include <cstddef>

#include "conveyor/stream.hpp"

namespace conveyor::stream {

struct Gold {
  double a = 1.0, b = 2.0, c = 0.0;  // STREAM's initial values

  /// Applies one kernel; returns the Dot result sum(a * b) over `n` elements for Dot, else 0.
  double apply(StreamKernel kernel, double scalar, std::size_t n);
};

/// Relative difference, or absolute where the expected value is 0. NaN compares as failing.
inline bool within(double value, double expected, double epsilon) {
  double diff = value - expected;
  if (diff < 0) diff = -diff;
  double scale = expected < 0 ? -expected : expected;
  return scale == 0 ? diff <= epsilon : diff <= epsilon * scale;
}

/// STREAM's tolerance for double-precision arrays.
inline constexpr double kArrayEpsilon = 1e-13;
/// Dot sums n products in an order each device picks; rounding grows with n.
double dot_epsilon(std::size_t n);

}  // namespace conveyor::stream
