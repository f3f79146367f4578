#pragma once
// What several of Runtime::Impl's source files share: the clock of the runtime's own time, the mark
// of the runtime's own threads, the option resolvers the constructor calls, and wait_user, a
// template used by the graph (submit, wait_all, acquire) and the destructor alike.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "conveyor/runtime.hpp"
#include "runtime/runtime_impl.hpp"

namespace conveyor {

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The runtime's own threads (workers and drivers): a task that submits tasks must not wait for
// room that only its own end would make.
inline thread_local const void* runtime_thread_of = nullptr;

/// RuntimeOptions::scheduler with "auto" resolved; `extra_devices`: devices given directly.
std::string resolve_scheduler(const RuntimeOptions& o, bool extra_devices);
/// RuntimeOptions::max_submitted: given, else from the environment, else from memory.
std::uint64_t resolve_max_submitted(std::uint64_t given);

template <typename Pred>
bool Runtime::Impl::wait_user_until(std::unique_lock<std::mutex>& lock, Pred ready,
                                    std::chrono::steady_clock::time_point deadline) {
  constexpr auto kNoDeadline = std::chrono::steady_clock::time_point::max();
  bool asleep = false;
  while (!ready() && (deadline == kNoDeadline || std::chrono::steady_clock::now() < deadline)) {
    if (!asleep) user_sleepers_.push_back(&asleep);
    doze(asleep);
    if (deadline == kNoDeadline)
      done_cv_.wait(lock);
    else
      done_cv_.wait_until(lock, deadline);
    if (asleep) {  // woken by no one (spurious, or the deadline): stays registered
      continue;
    }
    take_turn(lock, asleep);
  }
  if (asleep) {
    user_sleepers_.erase(std::find(user_sleepers_.begin(), user_sleepers_.end(), &asleep));
    rouse(asleep);
    take_turn(lock, asleep);
  }
  return ready();
}

template <typename Pred>
void Runtime::Impl::wait_user(std::unique_lock<std::mutex>& lock, Pred ready) {
  wait_user_until(lock, ready, std::chrono::steady_clock::time_point::max());
}

}  // namespace conveyor
