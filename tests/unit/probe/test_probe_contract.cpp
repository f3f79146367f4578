// What run_probe relies on from every ProbeTarget, written once and run on each device present
// (cpu, opencl:0, cuda:0; an absent device is skipped). No timing assertions: times need only be
// positive and finite, and results right.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "conveyor/probe.hpp"
#include "core/md5.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::test {
namespace {

class ProbeContract : public PerDevice {};

bool positive_finite(double t) { return t > 0 && std::isfinite(t); }

TEST_P(ProbeContract, EveryModelAndDirectionAnswers) {
  auto target = device().make_probe_target();
  auto models = target->memory_models();
  ASSERT_FALSE(models.empty());
  EXPECT_TRUE(positive_finite(target->dispatch_enqueue(5)));
  EXPECT_TRUE(positive_finite(target->dispatch_roundtrip()));
  for (MemoryModel model : models) {
    SCOPED_TRACE(std::string(to_string(model)));
    auto directions = target->directions(model);
    for (Direction direction : directions)
      for (std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20})
        EXPECT_TRUE(positive_finite(target->transfer(direction, model, bytes)))
            << to_string(direction) << " " << bytes;
    // The attach sizes of the driver, smallest and largest.
    for (std::size_t bytes : {std::size_t{256}, std::size_t{65536}})
      EXPECT_TRUE(positive_finite(target->memory_task(model, bytes))) << bytes;
  }
}

TEST_P(ProbeContract, ApplicationsAgreeWithTheHost) {
  auto target = device().make_probe_target();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  const int n = 33;  // not a multiple of any tile
  std::vector<float> a(n * n), b(n * n), c(n * n, -5.0f);
  for (auto& x : a) x = value(rng);
  for (auto& x : b) x = value(rng);
  EXPECT_TRUE(positive_finite(target->matmul(n, a.data(), b.data(), c.data())));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = 0;
      for (int k = 0; k < n; ++k) exact += double(a[i * n + k]) * b[k * n + j];
      ASSERT_NEAR(c[i * n + j], exact, 1e-4) << i << "," << j;
    }

  const std::size_t count = 300;
  std::vector<std::uint8_t> messages(count * 64), digests(count * 16);
  for (auto& byte : messages) byte = static_cast<std::uint8_t>(rng());
  EXPECT_TRUE(positive_finite(target->md5(count, messages.data(), digests.data())));
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t expected[16];
    core::md5_bytes(&messages[i * 64], 64, expected);
    ASSERT_EQ(std::memcmp(&digests[i * 16], expected, 16), 0) << "message " << i;
  }
}

CONVEYOR_INSTANTIATE_PER_DEVICE(ProbeContract);

}  // namespace
}  // namespace conveyor::test
