#pragma once
// Chrome trace-event recorder: complete events ("ph":"X") on tracks (pid = host or a device, tid =
// a worker or a link), with process_name/thread_name metadata, in the shape `conveyor plot` draws
// (docs/plot.md "trace"). Only used when RuntimeOptions::trace is set; one lock per event is fine
// there.
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace conveyor::device {

class VirtualClock;

class Trace {
 public:
  /// Times are microseconds since `epoch`, or on `clock` (a simulated platform) when given.
  explicit Trace(std::chrono::steady_clock::time_point epoch, const VirtualClock* clock = nullptr)
      : epoch_(epoch), clock_(clock) {}

  void name_process(int pid, std::string name);
  void name_track(int pid, int tid, std::string name);
  /// A complete event; times in microseconds since the epoch.
  void add(int pid, int tid, std::string_view name, std::string_view cat, double start_us,
           double end_us);
  double now_us() const;
  /// Writes {"traceEvents": [...], "displayTimeUnit": "ms", ...}; throws Error when it cannot.
  void write(const std::string& path, const std::string& command) const;

 private:
  struct Event {
    int pid, tid;
    std::string name, cat;
    double ts, dur;
  };
  struct Track {
    int pid, tid;
    std::string name;
  };
  std::chrono::steady_clock::time_point epoch_;
  const VirtualClock* clock_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::vector<Track> processes_, tracks_;
};

// Track layout: the host is pid 1 with one tid per CPU worker (from 1); device space s (1..N) is
// pid s + 1 with these tids.
inline constexpr int kHostPid = 1;
inline constexpr int kDeviceWorkerTid = 1;
inline constexpr int kH2dTid = 2;
inline constexpr int kD2hTid = 3;
inline constexpr int kD2dTid = 4;
/// A simulated platform's links: one process after the devices', one track per link direction
/// (tid = channel + 1, named "a -> b"), each copy drawn on every link of its route.
inline int links_pid(int devices) { return devices + 2; }

}  // namespace conveyor::device
