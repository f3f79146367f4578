#pragma once
// The wall time of one call, for the probes that time a body of work on the host.
#include <chrono>
#include <utility>

namespace conveyor::core {

template <typename F>
double seconds_of(F&& body) {
  auto start = std::chrono::steady_clock::now();
  std::forward<F>(body)();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace conveyor::core
