// The shared MD5 core (src/core/md5.hpp) that the CPU probe, the CUDA kernel and the checks use.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/md5.hpp"

namespace conveyor::test {
namespace {

std::string hex(const std::uint8_t* digest) {
  std::string out;
  char byte[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    out += byte;
  }
  return out;
}

std::string md5_hex(const std::string& text) {
  std::uint8_t digest[16];
  core::md5_bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), digest);
  return hex(digest);
}

// The test suite of RFC 1321, appendix A.5 (digests checked with Python hashlib).
TEST(Md5, Rfc1321TestSuite) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5_hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(md5_hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(md5_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(md5_hex("1234567890123456789012345678901234567890123456789012345678901234567890123456"
                    "7890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

// Lengths around the padding boundaries (55, 56, 63, 64, 65 bytes), from Python's hashlib.
TEST(Md5, PaddingBoundaries) {
  EXPECT_EQ(md5_hex(std::string(55, 'a')), "ef1772b6dff9a122358552954ad0df65");
  EXPECT_EQ(md5_hex(std::string(56, 'a')), "3b0c8ac703f828b04c6c197006d17218");
  EXPECT_EQ(md5_hex(std::string(63, 'a')), "b06521f39153d618550606be297466d5");
  EXPECT_EQ(md5_hex(std::string(64, 'a')), "014842d480b571495a4a0363793f7367");
  EXPECT_EQ(md5_hex(std::string(65, 'a')), "c743a45e0d2e6a95cb859adae0248435");
}

TEST(Md5, SixtyFourByteMessageMatchesTheGeneralDigest) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::uint8_t message[64], expected[16], got[16];
    for (auto& b : message) b = static_cast<std::uint8_t>(rng());
    core::md5_bytes(message, 64, expected);
    std::uint32_t words[16], state[4];
    core::md5_load_words(message, words);
    core::md5_64(words, state);
    core::md5_store_digest(state, got);
    ASSERT_EQ(hex(got), hex(expected)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace conveyor::test
