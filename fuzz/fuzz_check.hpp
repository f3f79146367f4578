#pragma once
// What the harnesses share: an invariant check that libFuzzer reports as a crash (abort), with
// the broken promise on stderr, and the input as text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace conveyor::fuzz {

/// Aborts (a crash to libFuzzer, which then keeps the input) when `ok` is false.
inline void check(bool ok, const char* promise) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", promise);
  std::abort();
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace conveyor::fuzz
