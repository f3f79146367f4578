#pragma once
/// The apps' check that a run fits in this host's memory before it allocates: a clear UsageError
/// instead of swapping or an allocation failure half-way.
#include <string_view>

namespace conveyor::apps::common {

/// Throws UsageError ("APP: n = N needs X MB of memory, Y MB are available") when `bytes` exceed
/// the memory available here (when the system says how much that is).
void require_host_memory(std::string_view app, int n, double bytes);

}  // namespace conveyor::apps::common
