#pragma once
// Virtual time for simulated platforms: the real runtime (threads, scheduler, coherence) runs, but
// modelled durations pass on this clock instead of the wall clock. The runtime reports when each of
// its threads stops running (waits for work, a completion or the end of a modelled duration) and
// when it is made runnable again; while no thread runs, nothing can happen before the next modelled
// event, so the clock jumps to it and fires it. Events at the same time fire in the order they were
// scheduled, from the clock's own thread, with no runtime lock held.
//
// Determinism: threads made runnable together would race in real time (which worker takes a
// task, whose copy reserves a link first), and a simulation of the same input would end at a
// different virtual time on each run. So the runnable threads take turns: a thread made runnable
// is queued (wake) in the order its waker ran, at most one of them runs at a time (it holds the
// turn), and the turn passes on in queue order when the holder waits again (running(-1)). The
// events due at one time all fire before the threads they woke run. With one thread submitting,
// the run is then the same every time.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "conveyor/codelet.hpp"
#include "device/codelet_impl.hpp"

namespace conveyor::device {

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
  /// it wakes it, so that the clock cannot jump while that thread has yet to run. A thread that
  /// holds the turn and waits (-1) passes the turn on.
  void running(int delta);
  /// Counts the thread known by `who` (any address unique to it while it waits) as runnable and
  /// queues it for the turn; it calls take_turn(who) once it is awake.
  void wake(const void* who);
  /// Blocks the calling thread until `who`'s turn comes (hold no lock another thread may need).
  void take_turn(const void* who);
  /// The calling thread, not counted yet, becomes runnable and waits for its turn (the thread
  /// that starts a runtime); nothing when it holds the turn already (a simulated cluster's rank
  /// thread, which runs from its first turn).
  void enter();
  int running_threads() const;
  /// Events fired so far (for tests and statistics).
  std::uint64_t events_fired() const;

  /// How long a CPU task takes on the modelled host (set by the platform). The TaskContext has the
  /// task's buffers and args.
  std::function<double(const device::CodeletImpl&, const TaskContext&)> cpu_task_seconds;
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
  void hand_over();  // under mutex_: the next queued thread gets the turn when it is free

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::priority_queue<Event, std::vector<Event>, Later> events_;
  double now_s_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t fired_ = 0;
  int running_ = 0;
  const void* holder_ = nullptr;    // the thread whose turn it is
  std::deque<const void*> queued_;  // woken, waiting for the turn, in wake order
  std::vector<std::pair<const void*, std::condition_variable*>> turn_waiters_;
  bool firing_ = false;  // the clock's thread is firing events: no thread runs meanwhile
  bool stop_ = false;
  const std::uint64_t id_;  // unique in the process (whose turn a thread holds: by id)
  std::thread thread_;
};

}  // namespace conveyor::device
