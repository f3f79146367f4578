#pragma once
/// How far a long operation has come, for a progress display (the CLI draws it on a terminal).
///
///   conveyor::sim::SweepPlan plan = conveyor::sim::plan_sweep(request);
///   plan.progress = [](const conveyor::ProgressStep& s) {
///     std::cerr << s.what << ": " << s.done << " of " << s.total << "\n";
///   };
#include <cstddef>
#include <functional>
#include <string_view>

namespace conveyor {

/// `done` of `total` steps of `what` are finished (total 0: how many is not known). A step is
/// reported when it starts (done = the steps before it) and once more when all are done.
struct ProgressStep {
  std::string_view what;
  std::size_t done = 0;
  std::size_t total = 0;
};

/// Called from the thread doing the work; an operation that works on several threads (a sim
/// sweep) may call it from any of them, one call at a time. May be empty.
using ProgressFn = std::function<void(const ProgressStep&)>;

/// Tells `progress`, when there is one, that `done` of `total` steps of `what` are finished.
inline void tell(const ProgressFn& progress, std::string_view what, std::size_t done = 0,
                 std::size_t total = 0) {
  if (progress) progress({what, done, total});
}

}  // namespace conveyor
