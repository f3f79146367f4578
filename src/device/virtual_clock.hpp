#pragma once
// Virtual time for simulated platforms: the real runtime (threads, scheduler, coherence) runs, but
// modelled durations pass on this clock instead of the wall clock. The runtime reports when each of
// its threads stops running (waits for work, a completion or the end of a modelled duration) and
// when it is made runnable again; while no thread runs, nothing can happen before the next modelled
// event, so the clock jumps to it and fires it. Events at the same time fire in the order they were
// scheduled, from the clock's own thread, with no runtime lock held.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "conveyor/codelet.hpp"
#include "device/codelet_impl.hpp"

namespace conveyor::runtime {

class VirtualClock {
 public:
  VirtualClock();
  ~VirtualClock();
  VirtualClock(const VirtualClock&) = delete;
  VirtualClock& operator=(const VirtualClock&) = delete;

  /// Seconds since the clock started.
  double now_s() const;
  /// Calls `fn` from the clock's thread when virtual time reaches `time_s` (now, if it has passed).
  void at(double time_s, std::function<void()> fn);
  void after(double seconds, std::function<void()> fn);
  /// The calling thread, which counts as running, stops running until `seconds` of virtual time
  /// have passed.
  void sleep_for(double seconds);
  /// Synchronous modelled work done inside a lock (a copy to the host under a data's lock) must not
  /// wait there: another thread blocked on that lock would look like a running thread, and the
  /// clock would never move. Such work makes the calling thread owe time instead: it is busy until
  /// `time_s`, and its next sleep_for starts from there, or settle() waits it out.
  void owe_until(double time_s);
  /// When the calling thread is free: now, or the end of what it owes.
  double thread_now_s() const;
  /// Waits until the calling thread owes nothing (call outside locks).
  void settle();
  /// Threads made runnable (+n) or about to wait (-n). A waker counts the thread it wakes before
  /// it wakes it, so that the clock cannot jump while that thread has yet to run.
  void running(int delta);
  int running_threads() const;
  /// Events fired so far (for tests and statistics).
  std::uint64_t events_fired() const;

  /// How long a CPU task takes on the modelled host (set by the platform). The TaskContext has the
  /// task's buffers and args.
  std::function<double(const detail::CodeletImpl&, const TaskContext&)> cpu_task_seconds;
  /// Also run CPU implementations for real (correctness of small cases), besides modelling them.
  bool run_cpu_functions = false;

 private:
  struct Event {
    double time_s;
    std::uint64_t seq;
    std::function<void()> fn;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time_s != b.time_s ? a.time_s > b.time_s : a.seq > b.seq;
    }
  };
  void loop();

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  double now_s_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t fired_ = 0;
  int running_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace conveyor::runtime
