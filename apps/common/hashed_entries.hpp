#pragma once
/// Deterministic pseudo-random matrix entries: a hash of the position, so that any entry can be
/// regenerated when checking a result without keeping a copy of the matrix, and every run (and
/// every peer in bench/) factorises the very same matrix.
///
///   double v = hashed_unit(position_key(row, col));   // in [0, 1)
#include <cstdint>

namespace conveyor::apps::common {

/// SplitMix64's finaliser: consecutive keys give unrelated, well-mixed 64-bit values.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// One key per (high, low) pair of 32-bit indices.
constexpr std::uint64_t position_key(std::uint64_t high, std::uint64_t low) {
  return (high << 32) | low;
}

/// A double in [0, 1) from the key: the top 53 bits of its hash.
constexpr double hashed_unit(std::uint64_t key) {
  return static_cast<double>(splitmix64(key) >> 11) * 0x1.0p-53;
}

}  // namespace conveyor::apps::common
