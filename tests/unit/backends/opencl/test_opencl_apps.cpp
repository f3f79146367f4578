#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "conveyor/probe.hpp"
#include "unit/backends/opencl/opencl_fixture.hpp"

namespace conveyor::test {
namespace {

using OpenCLApps = OpenCLTest;

TEST_F(OpenCLApps, MatmulMatchesANaiveHostProduct) {
  auto target = device().make_probe_target();
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int n : {1, 7, 16, 33, 64}) {
    SCOPED_TRACE(n);
    std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<float> a(nn), b(nn), c(nn, -7.0f);
    for (auto& x : a) x = value(rng);
    for (auto& x : b) x = value(rng);
    EXPECT_GT(target->matmul(n, a.data(), b.data(), c.data()), 0.0);
    std::size_t wrong = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double exact = 0, magnitude = 0;
        for (int k = 0; k < n; ++k) {
          exact += double(a[i * n + k]) * b[k * n + j];
          magnitude += std::fabs(double(a[i * n + k]) * b[k * n + j]);
        }
        // Single precision with any summation order: error below n * eps * sum |a_ik b_kj|.
        wrong += std::fabs(c[i * n + j] - exact) > 1e-5 * (1 + magnitude);
      }
    EXPECT_EQ(wrong, 0u);
  }
}

std::string hex(const std::uint8_t* digest) {
  std::string out;
  char byte[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
    out += byte;
  }
  return out;
}

// Expected digests from Python: hashlib.md5(m).hexdigest() for m in
//   bytes(64), bytes(range(64)),
//   b'The quick brown fox jumps over the lazy dog'.ljust(64, b'.'), b'\xff' * 64
TEST_F(OpenCLApps, Md5MatchesReferenceDigests) {
  std::array<std::array<std::uint8_t, 64>, 4> fixed{};
  for (int i = 0; i < 64; ++i) fixed[1][i] = static_cast<std::uint8_t>(i);
  std::string fox = "The quick brown fox jumps over the lazy dog";
  fox.resize(64, '.');
  std::copy(fox.begin(), fox.end(), fixed[2].begin());
  fixed[3].fill(0xff);
  const std::array<std::string, 4> expected = {
      "3b5d3c7d207e37dceeedd301e35e2e58", "b2d3f56bc197fd985d5965079b5e7148",
      "23902e01bc2f708c449efadae039f277", "aabd2b2a451504e119a243d8e775fdad"};

  // An odd count, so that the last work-group is partly idle.
  const std::size_t count = 259;
  std::vector<std::uint8_t> messages(count * 64), digests(count * 16, 0);
  for (std::size_t m = 0; m < count; ++m)
    std::copy(fixed[m % 4].begin(), fixed[m % 4].end(), messages.begin() + m * 64);
  auto target = device().make_probe_target();
  EXPECT_GT(target->md5(count, messages.data(), digests.data()), 0.0);
  for (std::size_t m = 0; m < count; ++m) EXPECT_EQ(hex(&digests[m * 16]), expected[m % 4]) << m;
}

}  // namespace
}  // namespace conveyor::test
