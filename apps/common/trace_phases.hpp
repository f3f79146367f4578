#pragma once
/// What an application was doing over the runtime's trace: warm-up, matrix generation, each
/// timed factorisation. Without these the timeline of `conveyor cholesky --trace` (or `qr`) opens
/// with a stretch where no task runs (the warm-up's OpenCL program build, the matrix being
/// generated) that nothing in the trace explains.
///
/// Times are on the trace's clock, microseconds since the runtime started (Runtime::seconds):
///
///   double t = rt.seconds() * 1e6;  ...;  phases.push_back({"warm-up (...)", t, rt.seconds() *
///   1e6}); rt.write_trace(path);  add_phases_to_trace(path, "cholesky", phases);
#include <string>
#include <vector>

namespace conveyor::apps::common {

struct TracePhase {
  /// "warm-up (...)", "matrix generation (not timed)", "factorisation 1 (timed)": plots shorten a
  /// name to its part before " (" where the whole does not fit.
  std::string name;
  double start_us = 0, end_us = 0;
  bool timed = false;  ///< counted in the reported time
};

/// Adds the phases to the Chrome trace at `path` as complete events of category "phase" on a
/// track of their own (process `app`, e.g. "cholesky", thread "phases"; `conveyor plot` draws them
/// as labelled bands behind the other tracks), and the machine record every result carries
/// (machine_record). Throws Error when the file cannot be read or written.
void add_phases_to_trace(const std::string& path, const std::string& app,
                         const std::vector<TracePhase>& phases);

}  // namespace conveyor::apps::common
