// predict_staging(): the staged pipeline's model over the probe's staging measurements, and the
// reading of those measurements for `--strategy auto`.
#include "stream/staging_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"

namespace conveyor::stream {

std::optional<double> plain_rate_gbs(const StagingCalibration& calibration, StreamKernel kernel,
                                     int threads) {
  std::vector<std::pair<int, double>> points;
  for (const auto& p : calibration.plain)
    if (p.kernel == traits(kernel).name && p.best_gbs > 0)
      points.emplace_back(p.threads, p.best_gbs);
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end());
  // More threads never stream slower in the model (the extra ones could stay idle): a dip is a
  // load spike during the probe on a shared machine, not a property of the machine.
  for (std::size_t i = 1; i < points.size(); ++i)
    points[i].second = std::max(points[i].second, points[i - 1].second);
  if (threads <= points.front().first) return points.front().second;
  if (threads >= points.back().first) return points.back().second;
  for (std::size_t i = 1; i < points.size(); ++i)
    if (threads <= points[i].first) {
      const auto [t0, r0] = points[i - 1];
      const auto [t1, r1] = points[i];
      return r0 + (r1 - r0) * (threads - t0) / static_cast<double>(t1 - t0);
    }
  return points.back().second;
}

namespace {

StagingPrediction unusable(std::string why) {
  StagingPrediction p;
  p.why_not = std::move(why);
  return p;
}

}  // namespace

StagingPrediction predict_staging(const StagingCalibration& cal, const StagingQuery& q) {
  if (q.threads < 1 || q.elements == 0 || q.block_bytes < 64)
    return unusable("the model needs at least one thread, one element and a block of 64 bytes");
  if (cal.variant != to_string(q.variant))
    return unusable(
        fmt::format("the calibration measured the {} kernels, this run uses the {} ones",
                    cal.variant, to_string(q.variant)));
  if (cal.binding != to_string(q.binding))
    return unusable(fmt::format("the calibration measured {} binding, this run uses {}",
                                cal.binding, to_string(q.binding)));
  const MoverCalibration* mover = cal.find_mover(q.mover);
  if (!mover || mover->copy_gbs <= 0)
    return unusable(fmt::format("the calibration has no copy rate for the {} mover", q.mover));
  const std::optional<double> rate = plain_rate_gbs(cal, q.kernel, q.threads);
  if (!rate)
    return unusable(fmt::format("the calibration has no plain {} rate", traits(q.kernel).name));
  if (cal.near_read_gbs <= 0) return unusable("the calibration has no rate for reading the ring");
  double best_plain = 0;
  for (const auto& p : cal.plain) best_plain = std::max(best_plain, p.best_gbs);

  // Everything in seconds per element of the whole run, then times N.
  const double n = static_cast<double>(q.elements);
  const int inputs = traits(q.kernel).words_read;
  const double read = 8.0 * inputs, written = 8.0 * traits(q.kernel).words_written;
  const double b = *rate * 1e9, b_max = std::max(best_plain, *rate) * 1e9;
  const double near = cal.near_read_gbs * 1e9, copy = mover->copy_gbs * 1e9;
  const double overhead = mover->block_overhead_us * 1e-6;
  const int cpus = cal.cpus > 0 ? cal.cpus : static_cast<int>(std::thread::hardware_concurrency());
  const int copy_threads = mover->uses_cpu ? std::max(1, q.copy_threads) : 1;
  // A copy thread serves whole lanes: more copy threads than lanes do not copy faster.
  const int parallel = std::min(copy_threads, q.threads);
  const double lane_elements = std::ceil(n / q.threads);
  const double block = std::min(static_cast<double>(q.block_bytes / 8), lane_elements);

  const double plain_s = n * (read + written) / b;
  auto staged_s = [&](double share) {    // share of the input bytes the mover stages
    const double staged = share * read;  // bytes per element
    const double cores = n * (read - staged + written) / b + n * staged / (q.threads * near);
    const double copies = n / block * (staged / 8.0);
    const double mover_work = n * staged / copy + copies * overhead;  // one copier's seconds
    const double moving = mover_work / parallel;
    const double memory = n * (read + written) / b_max;
    double t = std::max({cores, moving, memory});
    // A copy thread without a CPU of its own takes its time from the computing threads.
    if (mover->uses_cpu && q.threads + copy_threads > cpus)
      t = std::max(t, (q.threads * cores + mover_work) / std::max(cpus, 1));
    // Each lane computes nothing until its first block has arrived.
    const double fill = std::ceil(static_cast<double>(q.threads) / parallel) *
                        (block * staged / copy + (staged / 8.0) * overhead);
    return t + fill;
  };
  StagingPrediction p;
  p.usable = true;
  const double bytes = n * (read + written);
  p.plain_gbs = bytes / plain_s / 1e9;
  p.all_gbs = bytes / staged_s(1.0) / 1e9;
  p.split_gbs = bytes / staged_s(0.5) / 1e9;
  p.strategy = p.split_gbs > p.all_gbs ? PipelineStrategy::Split : PipelineStrategy::All;
  p.staging = std::max(p.all_gbs, p.split_gbs) > kAutoMargin * p.plain_gbs;
  return p;
}

}  // namespace conveyor::stream

namespace conveyor {

StagingModelSource load_staging_model(const std::filesystem::path& path, bool given) {
  StagingModelSource source;
  const std::string timing = "strategy auto times each thread count and kernel instead";
  std::error_code ec;
  if (!given && !std::filesystem::exists(path, ec)) {
    source.note = fmt::format("no calibration at {}: {} (run 'conveyor probe' to let it predict)",
                              path.string(), timing);
    return source;
  }
  Calibration cal;
  try {
    cal = Calibration::load(path);
  } catch (const UsageError& e) {
    if (given) throw;
    source.note = fmt::format("{}; {}", e.what(), timing);
    return source;
  }
  if (!cal.staging) {
    source.note = fmt::format(
        "calibration {} (schema {}) has no staging measurements: {} (run 'conveyor probe' with "
        "the CPU, without --quick, to add them)",
        path.string(), cal.schema, timing);
    return source;
  }
  source.staging = std::move(cal.staging);
  source.origin = fmt::format("{} (measured {})", path.string(), cal.date);
  return source;
}

}  // namespace conveyor
