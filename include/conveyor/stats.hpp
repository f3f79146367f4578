#pragma once
/// Summaries of repeated measurements.
#include <span>
#include <vector>

namespace conveyor {

/// Best (minimum), median and worst (maximum) of a set of times, plus the mean.
struct TimeSummary {
  double best = 0;
  double median = 0;
  double worst = 0;
  double mean = 0;
  int count = 0;
};

/// Summarises `samples` (seconds). An empty span gives a zero summary with count 0.
TimeSummary summarize(std::span<const double> samples);

/// Least-squares line y = intercept + slope * x, with the root-mean-square residual.
struct LinearFit {
  double intercept = 0;
  double slope = 0;
  double rms_residual = 0;
  double r_squared = 0;
};

/// Fits a line through (x[i], y[i]). Needs at least two distinct x values (throws conveyor::Error).
LinearFit fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace conveyor
