#pragma once
// Waiting on a flag that another agent (copy thread, DSA engine) sets: spin with pause first, the
// common case being a short wait, then yield so that an oversubscribed machine (more threads than
// cores) still makes progress.
#include <thread>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace conveyor::movers {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Calls done() until it returns true.
template <typename Done>
void spin_until(Done&& done) {
  for (int spins = 0; !done(); ++spins) {
    if (spins < 4096)
      cpu_relax();
    else
      std::this_thread::yield();
  }
}

}  // namespace conveyor::movers
