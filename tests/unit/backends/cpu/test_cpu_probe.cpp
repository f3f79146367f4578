// The CPU probe target: the host as an OpenMP-style device (no timing assertions).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/sgemm.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "core/md5.hpp"

namespace conveyor::test {
namespace {

class CpuProbe : public ::testing::Test {
 protected:
  void SetUp() override { target_ = find_device("cpu")->make_probe_target(); }
  ProbeTarget& probe() { return *target_; }

 private:
  std::unique_ptr<ProbeTarget> target_;
};

bool positive_finite(double t) { return t > 0 && std::isfinite(t); }

TEST_F(CpuProbe, OffersHostMemoryAndMemcpyOnly) {
  EXPECT_EQ(probe().memory_models(), std::vector<MemoryModel>{MemoryModel::Host});
  EXPECT_EQ(probe().directions(MemoryModel::Host),
            std::vector<Direction>{Direction::DeviceToDevice});
  EXPECT_THROW(probe().transfer(Direction::HostToDevice, MemoryModel::Host, 4096), UsageError);
  EXPECT_THROW(probe().transfer(Direction::DeviceToDevice, MemoryModel::Pinned, 4096), UsageError);
  EXPECT_THROW(probe().memory_task(MemoryModel::Svm, 4096), UsageError);
  EXPECT_THROW(probe().transfer(Direction::DeviceToDevice, MemoryModel::Host, 0), UsageError);
}

TEST_F(CpuProbe, TransfersSmallAndParallelSizes) {
  // 4 KiB stays on one core, 4 MiB + 3 goes over the team with an uneven split.
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, std::size_t{(4u << 20) + 3}})
    EXPECT_TRUE(
        positive_finite(probe().transfer(Direction::DeviceToDevice, MemoryModel::Host, bytes)))
        << bytes;
}

TEST_F(CpuProbe, DispatchAndTasksArePositiveAndFinite) {
  EXPECT_TRUE(positive_finite(probe().dispatch_enqueue(10)));
  EXPECT_TRUE(positive_finite(probe().dispatch_roundtrip()));
  EXPECT_THROW(probe().dispatch_enqueue(0), UsageError);
  for (std::size_t bytes : {std::size_t{2}, std::size_t{256}, std::size_t{1u << 20}})
    EXPECT_TRUE(positive_finite(probe().memory_task(MemoryModel::Host, bytes))) << bytes;
}

/// Counts entries of c that differ from the double-precision product by more than single
/// precision with any summation order allows (n * eps * sum |a_ik b_kj|, bounded by 1e-5).
std::size_t wrong_entries(int n, const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& c) {
  std::size_t wrong = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = 0, magnitude = 0;
      for (int k = 0; k < n; ++k) {
        exact += double(a[i * n + k]) * b[k * n + j];
        magnitude += std::fabs(double(a[i * n + k]) * b[k * n + j]);
      }
      wrong += std::fabs(c[i * n + j] - exact) > 1e-5 * (1 + magnitude);
    }
  return wrong;
}

// 1 and 7: tiny; 65, 130: uneven rows over the team; 300: more than one block of columns and of k.
constexpr int kSizes[] = {1, 7, 65, 130, 300};

TEST_F(CpuProbe, MatmulMatchesANaiveProduct) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int n : kSizes) {
    SCOPED_TRACE(n);
    std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<float> a(nn), b(nn), c(nn, -9.0f);
    for (auto& x : a) x = value(rng);
    for (auto& x : b) x = value(rng);
    EXPECT_TRUE(positive_finite(probe().matmul(n, a.data(), b.data(), c.data())));
    EXPECT_EQ(wrong_entries(n, a, b, c), 0u);
  }
  EXPECT_THROW(probe().matmul(0, nullptr, nullptr, nullptr), UsageError);
}

// The fallback loop is tested on its own, also where the build uses OpenBLAS: split into two row
// ranges as the team would.
TEST(CpuSgemm, BlockedLoopMatchesANaiveProduct) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int n : kSizes) {
    SCOPED_TRACE(n);
    std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<float> a(nn), b(nn), c(nn, -9.0f);
    for (auto& x : a) x = value(rng);
    for (auto& x : b) x = value(rng);
    backend::cpu::blocked_sgemm_rows(n, a.data(), b.data(), c.data(), 0, n / 2);
    backend::cpu::blocked_sgemm_rows(n, a.data(), b.data(), c.data(), n / 2, n);
    EXPECT_EQ(wrong_entries(n, a, b, c), 0u);
  }
  EXPECT_FALSE(backend::cpu::sgemm_name().empty());
}

TEST_F(CpuProbe, Md5OfManyMessagesMatchesTheCore) {
  std::mt19937 rng(5);
  for (std::size_t count : {std::size_t{1}, std::size_t{100}, std::size_t{1001}}) {
    SCOPED_TRACE(count);
    std::vector<std::uint8_t> messages(count * 64), digests(count * 16);
    for (auto& b : messages) b = static_cast<std::uint8_t>(rng());
    EXPECT_TRUE(positive_finite(probe().md5(count, messages.data(), digests.data())));
    for (std::size_t i = 0; i < count; ++i) {
      std::uint8_t expected[16];
      core::md5_bytes(&messages[i * 64], 64, expected);
      ASSERT_EQ(std::memcmp(&digests[i * 16], expected, 16), 0) << "message " << i;
    }
  }
  EXPECT_THROW(probe().md5(0, nullptr, nullptr), UsageError);
}

}  // namespace
}  // namespace conveyor::test
