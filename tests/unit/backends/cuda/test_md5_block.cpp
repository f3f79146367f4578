// The MD5 routine the GPU kernel runs, checked on the host against digests from Python's hashlib,
// so that the algorithm is tested on machines without a GPU.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "core/md5.hpp"
#include "cuda_test_support.hpp"

namespace conveyor::test {
namespace {

static_assert(std::endian::native == std::endian::little, "the test reads words as little-endian");

TEST(CudaMd5Block, MatchesHashlib) {
  for (const Md5Case& c : md5_cases()) {
    std::uint32_t words[16], digest[4];
    std::memcpy(words, c.message.data(), sizeof words);
    core::md5_64(words, digest);
    EXPECT_EQ(to_hex(reinterpret_cast<const std::uint8_t*>(digest), 16), c.hex) << c.what;
  }
}

}  // namespace
}  // namespace conveyor::test
