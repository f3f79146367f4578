#pragma once
/// The median of the timed repetitions, reported next to the fastest (`--repeat`).
#include <algorithm>
#include <vector>

namespace conveyor::apps::common {

/// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace conveyor::apps::common
