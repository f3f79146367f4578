#pragma once
/// What the application was doing over the runtime's trace: warm-up, matrix generation, each
/// timed factorisation. Without these the timeline of `conveyor cholesky --trace` opens with a
/// stretch where no task runs (the warm-up's OpenCL program build, the matrix being generated)
/// that nothing in the trace explains.
///
///   PhaseClock clock;                 // just before the Runtime is constructed
///   conveyor::Runtime rt(options);
///   auto t = clock.now_us();  ...;  phases.push_back({"warm-up", t, clock.now_us(), false});
///   rt.write_trace(path);  add_phases_to_trace(path, phases);
#include <chrono>
#include <string>
#include <vector>

namespace conveyor::apps::cholesky {

/// Microseconds on the clock of the runtime's trace. The runtime starts that clock when it is
/// constructed, so a PhaseClock made immediately before the Runtime reads a few microseconds ahead
/// of it at most: nothing for phases that last milliseconds to seconds.
class PhaseClock {
 public:
  double now_us() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
};

struct TracePhase {
  /// "warm-up (...)", "matrix generation (not timed)", "factorisation 1 (timed)": plots shorten a
  /// name to its part before " (" where the whole does not fit.
  std::string name;
  double start_us = 0, end_us = 0;
  bool timed = false;  ///< counted in the reported time
};

/// Adds the phases to the Chrome trace at `path` as complete events of category "phase" on a
/// track of their own ("cholesky" / "phases"; `conveyor plot` draws them as labelled bands behind
/// the other tracks), and the machine record every result carries (machine_record). Throws Error
/// when the file cannot be read or written.
void add_phases_to_trace(const std::string& path, const std::vector<TracePhase>& phases);

}  // namespace conveyor::apps::cholesky
