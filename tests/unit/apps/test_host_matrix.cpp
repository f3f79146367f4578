// The apps' matrix storage starts on a cache line and is zero, whatever its size (glibc's malloc
// puts large blocks 16 bytes past a page); reserved storage faults instead of being read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "common/cache_line_vector.hpp"
#include "common/memory_check.hpp"

namespace conveyor::apps::common {
namespace {

bool on_a_cache_line(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kCacheLine == 0;
}

TEST(HostMatrixStorage, StartsOnACacheLineAndIsZero) {
  // Small (from malloc's arenas) and large (mmap'd by malloc) alike.
  for (std::size_t elements : {std::size_t{3}, std::size_t{1000}, std::size_t{1} << 21}) {
    SCOPED_TRACE(elements);
    HostMatrix<double> m(elements, /*backed=*/true);
    EXPECT_TRUE(m.backed());
    EXPECT_TRUE(on_a_cache_line(m.data()));
    EXPECT_TRUE(std::all_of(m.data(), m.data() + elements, [](double x) { return x == 0.0; }));
    HostMatrix<float> f(elements, /*backed=*/true);
    EXPECT_TRUE(on_a_cache_line(f.data()));
  }
  HostMatrix<double> reserved(std::size_t{1} << 21, /*backed=*/false);
  EXPECT_FALSE(reserved.backed());
}

TEST(CacheLineVector, KeepsItsAlignmentWhenItGrows) {
  CacheLineVector<float> v(5);
  EXPECT_TRUE(on_a_cache_line(v.data()));
  v.resize(1 << 20);
  EXPECT_TRUE(on_a_cache_line(v.data()));
  EXPECT_EQ(v[(1 << 20) - 1], 0.0f);
}

}  // namespace
}  // namespace conveyor::apps::common
