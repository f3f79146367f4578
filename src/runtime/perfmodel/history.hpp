#pragma once
// Execution-time history of one (codelet, device, footprint): the last samples in a ring, whose
// median is the prediction, and a mean / deviation over the samples that were not outliers.
// Medians because a few spikes (a device's kernel measured at 100x its usual time while another
// process held it) must not move placement; the ring because a persistent change (the machine got
// busier) should, once it is the majority of recent samples.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace conveyor::runtime::perfmodel {

/// FNV-1a over the byte sizes of a task's buffers, in access order: tasks of one codelet on
/// buffers of the same shapes share a footprint (StarPU's "footprint" idea).
std::uint32_t footprint(std::span<const std::size_t> buffer_bytes);

/// Median of `values` (copied; empty gives 0).
double median(std::vector<double> values);

class History {
 public:
  static constexpr std::size_t kRing = 32;
  /// Samples further than this many scaled MADs from the median are outliers (not in the mean).
  static constexpr double kOutlierMads = 5.0;

  /// Adds a measured time (seconds); returns false when it was taken as an outlier (it stays in
  /// the ring, where the median discounts it, but not in the mean and deviation).
  bool add(double seconds);

  /// The prediction: median of the ring; 0 when empty.
  double median() const;
  double mean() const { return mean_; }
  /// Standard deviation of the accepted samples.
  double deviation() const;
  std::uint64_t count() const { return count_; }        ///< every sample ever added
  std::uint64_t accepted() const { return accepted_; }  ///< those in mean / deviation
  std::uint64_t outliers() const { return count_ - accepted_; }
  const std::vector<double>& ring() const { return ring_; }

  /// For the file: restores the state written by the accessors above.
  static History restore(std::vector<double> ring, std::uint64_t count, std::uint64_t accepted,
                         double mean, double deviation);

 private:
  bool outlier(double seconds) const;
  std::span<const double> sorted() const { return {sorted_.data(), ring_.size()}; }

  std::vector<double> ring_;  // oldest overwritten first
  std::size_t next_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t accepted_ = 0;
  double mean_ = 0;
  double m2_ = 0;  // Welford's sum of squared deviations
  // The ring's samples in ascending order: a History is updated after every task and predicted
  // from at every placement, so its median and median absolute deviation are read from here in
  // O(kRing) steps, without sorting or allocating (a copy and two nth_element per sample before).
  std::array<double, kRing> sorted_{};
};

/// t(bytes) = a * bytes^b + c, fitted to (bytes, median seconds) points of one codelet and device.
struct PowerFit {
  double a = 0, b = 1, c = 0;
  std::size_t points = 0;  ///< distinct footprints it was fitted to; 0 = no fit
  double predict(double bytes) const;
  bool valid() const { return points > 0; }
  std::string describe() const;  ///< "2.1e-12 * bytes^1.48 + 3.0e-05 s"
};

/// Least squares in log space for a and b, with c chosen from a few candidates below the smallest
/// time (the fixed cost per task); one point gives a line through the origin, two an exact power.
PowerFit fit_power(std::span<const std::pair<double, double>> points);

}  // namespace conveyor::runtime::perfmodel
