#include "conveyor/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "conveyor/error.hpp"

namespace conveyor {

TimeSummary summarize(std::span<const double> samples) {
  TimeSummary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t n = sorted.size();
  s.count = static_cast<int>(n);
  s.best = sorted.front();
  s.worst = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  return s;
}

LinearFit fit_line(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 2) throw Error("fit_line: need at least two points");
  double n = static_cast<double>(x.size());
  double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw Error("fit_line: all x values are equal");
  LinearFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  double ss_res = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double r = y[i] - (fit.intercept + fit.slope * x[i]);
    ss_res += r * r;
  }
  fit.rms_residual = std::sqrt(ss_res / n);
  fit.r_squared = syy > 0 ? 1.0 - ss_res / syy : 1.0;
  return fit;
}

}  // namespace conveyor
