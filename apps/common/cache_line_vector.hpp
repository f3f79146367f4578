#pragma once
/// A std::vector whose storage starts on a cache line (64 bytes). The apps' matrices and tiles live
/// in one: glibc's malloc returns large blocks 16 bytes past a page boundary, so each column of a
/// tile would straddle two cache lines, and the vector loads and stores of a tile kernel with it
/// (the fused TS update's ran 12 % slower on Zen 3 with 16-byte offset tiles).
///
///   common::CacheLineVector<double> a(n * n);   // a.data() % 64 == 0, entries zero
#include <cstddef>
#include <new>
#include <vector>

namespace conveyor::apps::common {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete (p, std::align_val_t{kCacheLine});
  }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace conveyor::apps::common
