#pragma once
// A fixed team of pinned threads that runs one function in parallel and joins, like an OpenMP
// parallel region with a static team: run(fn) calls fn(member) on every member, the calling thread
// being member 0, and returns when all are done. Conveyor uses its own team rather than OpenMP so
// that a thread sweep can re-pin per row and the build needs no OpenMP runtime.
//
//   ThreadTeam team(4, ThreadTeam::placement(4, ThreadBinding::Scatter));
//   team.run([&](int member) { work(chunk(member, team.size())); });
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "conveyor/stream.hpp"

namespace conveyor::core {

class ThreadTeam {
 public:
  /// `cpus` gives the OS CPU of each member (size == threads), or is empty to leave placement to
  /// the OS.
  ThreadTeam(int threads, std::vector<int> cpus);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(cpus_.empty() ? workers_.size() + 1 : cpus_.size()); }
  const std::vector<int>& cpus() const { return cpus_; }

  /// Runs fn(member) on every member and waits for all. The first exception thrown by a member is
  /// rethrown here after every member has finished.
  template <typename Fn>
  void run(Fn&& fn) {
    run_erased([](void* f, int member) { (*static_cast<Fn*>(f))(member); }, &fn);
  }

  /// OS CPUs for `threads` members: scatter spreads over packages and NUMA nodes first, compact
  /// fills cores in order; both use one hardware thread per core before the second ones. None:
  /// empty. Throws UsageError when threads exceeds the hardware threads of the machine.
  static std::vector<int> placement(int threads, ThreadBinding binding);

 private:
  using Job = void (*)(void*, int);
  void run_erased(Job job, void* context);
  void worker_loop(int member);
  void run_member(int member);

  std::vector<int> cpus_;
  std::vector<std::thread> workers_;
  Job job_ = nullptr;
  void* context_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> remaining_{0};
  bool stopping_ = false;
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<int> caller_affinity_;  // restored on destruction
};

/// Pins the calling thread to one OS CPU; returns false when the OS refuses.
bool pin_current_thread(int cpu);

}  // namespace conveyor::core
