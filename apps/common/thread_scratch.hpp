#pragma once
/// Scratch memory of one worker thread, grown to the largest request and kept: tasks on a thread
/// run one at a time, so a kernel's workspace is never shared and costs no allocation once the
/// largest tile was seen. `Slot` tells apart the buffers one kernel needs at once. On cache lines
/// (cache_line_vector.hpp), as the matrices are.
///
///   double* w = common::thread_scratch<double>(n * ib);        // one buffer
///   double* v = common::thread_scratch<double, 1>(m * k);      // a second, alive beside it
#include <cstddef>

#include "common/cache_line_vector.hpp"

namespace conveyor::apps::common {

template <typename T, int Slot = 0>
T* thread_scratch(std::size_t elements) {
  thread_local CacheLineVector<T> space;
  if (space.size() < elements) space.resize(elements);
  return space.data();
}

}  // namespace conveyor::apps::common
