#pragma once
/// A loop over independent items on every core, for the host-side work around a factorisation
/// (generating the matrix, checking the result) that does not go through the runtime.
///
///   parallel_for(n, [&](long c) { fill_column(c); });
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace conveyor::apps::common {

/// Runs body(i) for i in [0, count) on one thread per core. Items are handed out one at a time
/// because their costs differ (a column near the end of a triangle is longer than one near the
/// start); body must be safe to run concurrently for different i.
template <typename Body>
void parallel_for(long count, Body body) {
  std::atomic<long> next{0};
  auto run = [&] {
    for (long i = next++; i < count; i = next++) body(i);
  };
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
}

}  // namespace conveyor::apps::common
