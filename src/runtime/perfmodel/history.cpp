#include "runtime/perfmodel/history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace conveyor::runtime::perfmodel {

std::uint32_t footprint(std::span<const std::size_t> buffer_bytes) {
  std::uint32_t h = 2166136261u;
  for (std::size_t bytes : buffer_bytes) {
    auto v = static_cast<std::uint64_t>(bytes);
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint32_t>((v >> (8 * i)) & 0xff);
      h *= 16777619u;
    }
  }
  return h;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (values.size() % 2) return upper;
  double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

namespace {
// The median of sorted values (0 when empty).
double sorted_median(std::span<const double> s) {
  if (s.empty()) return 0;
  std::size_t mid = s.size() / 2;
  return s.size() % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// The median of |x - m| over sorted values: the deviations below m and above it are two sorted
// runs (walking outwards from m), merged until the middle one.
double sorted_mad(std::span<const double> s, double m) {
  if (s.empty()) return 0;
  std::size_t right = static_cast<std::size_t>(std::lower_bound(s.begin(), s.end(), m) - s.begin());
  std::size_t left = right;  // s[left - 1] is the next below m
  double previous = 0, current = 0;
  for (std::size_t taken = 0; taken <= s.size() / 2; ++taken) {
    previous = current;
    if (left > 0 && (right == s.size() || m - s[left - 1] <= s[right] - m))
      current = m - s[--left];
    else
      current = s[right++] - m;
  }
  return s.size() % 2 ? current : (previous + current) / 2;
}
}  // namespace

bool History::outlier(double seconds) const {
  // Too few samples to know what is usual: accept.
  if (ring_.size() < 5) return false;
  double m = median();
  // A floor of a quarter of the median: tasks timed to the microsecond often have MAD 0, and a
  // sample 10 % off is not a spike.
  double spread = std::max(kOutlierMads * 1.4826 * sorted_mad(sorted(), m), 0.25 * m);
  return std::fabs(seconds - m) > spread;
}

double History::median() const { return sorted_median(sorted()); }

bool History::add(double seconds) {
  bool out = outlier(seconds);
  auto end = sorted_.begin() + static_cast<std::ptrdiff_t>(ring_.size());
  if (ring_.size() < kRing) {
    ring_.push_back(seconds);
  } else {  // the oldest sample leaves the sorted copy too
    auto oldest = std::lower_bound(sorted_.begin(), end, ring_[next_]);
    std::move(oldest + 1, end--, oldest);
    ring_[next_] = seconds;
    next_ = (next_ + 1) % kRing;
  }
  auto at = std::upper_bound(sorted_.begin(), end, seconds);
  std::move_backward(at, end, end + 1);
  *at = seconds;
  ++count_;
  if (out) return false;
  ++accepted_;
  double delta = seconds - mean_;
  mean_ += delta / static_cast<double>(accepted_);
  m2_ += delta * (seconds - mean_);
  return true;
}

double History::deviation() const {
  return accepted_ > 1 ? std::sqrt(m2_ / static_cast<double>(accepted_ - 1)) : 0.0;
}

History History::restore(std::vector<double> ring, std::uint64_t count, std::uint64_t accepted,
                         double mean, double deviation) {
  History h;
  if (ring.size() > kRing) ring.erase(ring.begin(), ring.end() - kRing);
  h.ring_ = std::move(ring);
  h.next_ = h.ring_.size() % kRing;
  std::copy(h.ring_.begin(), h.ring_.end(), h.sorted_.begin());
  std::sort(h.sorted_.begin(), h.sorted_.begin() + static_cast<std::ptrdiff_t>(h.ring_.size()));
  h.count_ = std::max<std::uint64_t>(count, h.ring_.size());
  h.accepted_ = std::min(accepted, h.count_);
  h.mean_ = mean;
  h.m2_ = h.accepted_ > 1 ? deviation * deviation * static_cast<double>(h.accepted_ - 1) : 0.0;
  return h;
}

double PowerFit::predict(double bytes) const { return a * std::pow(std::max(bytes, 1.0), b) + c; }

std::string PowerFit::describe() const {
  if (!valid()) return "-";
  return fmt::format("{:.3g} * bytes^{:.3f} + {:.3g} s", a, b, c);
}

namespace {

// a, b of log(t - c) = log a + b log x by least squares; the sum of squared log residuals.
double fit_log(std::span<const std::pair<double, double>> points, double c, double& a, double& b) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, t] : points) {
    double lx = std::log(std::max(x, 1.0)), ly = std::log(t - c);
    n += 1;
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  double det = n * sxx - sx * sx;
  b = det > 1e-12 ? (n * sxy - sx * sy) / det : 1.0;
  a = std::exp((sy - b * sx) / n);
  double residual = 0;
  for (const auto& [x, t] : points) {
    double r = std::log(t) - std::log(a * std::pow(std::max(x, 1.0), b) + c);
    residual += r * r;
  }
  return residual;
}

}  // namespace

PowerFit fit_power(std::span<const std::pair<double, double>> points) {
  PowerFit fit;
  std::vector<std::pair<double, double>> usable;
  for (const auto& p : points)
    if (p.first > 0 && p.second > 0 && std::isfinite(p.second)) usable.push_back(p);
  if (usable.empty()) return fit;
  fit.points = usable.size();
  if (usable.size() == 1) {  // proportional to the bytes: the least that one point can say
    fit.a = usable[0].second / usable[0].first;
    fit.b = 1;
    return fit;
  }
  double t_min = std::numeric_limits<double>::max();
  for (const auto& p : usable) t_min = std::min(t_min, p.second);
  // c = 0 for two points (an exact power law through both); with three or more, try fixed costs
  // up to 90 % of the fastest time and keep the best fit in log space.
  double best = std::numeric_limits<double>::max();
  int candidates = usable.size() >= 3 ? 10 : 1;
  for (int i = 0; i < candidates; ++i) {
    double c = t_min * 0.1 * i;
    double a = 0, b = 1;
    double residual = fit_log(usable, c, a, b);
    if (residual < best) {
      best = residual;
      fit.a = a;
      fit.b = b;
      fit.c = c;
    }
  }
  // A task does not get faster as its buffers grow: a negative exponent means a spike among few
  // points (a first task paying one-time costs). Then say only "about this long".
  if (fit.b < 0) {
    double log_sum = 0;
    for (const auto& p : usable) log_sum += std::log(p.second);
    fit.a = std::exp(log_sum / static_cast<double>(usable.size()));
    fit.b = 0;
    fit.c = 0;
  }
  return fit;
}

}  // namespace conveyor::runtime::perfmodel
