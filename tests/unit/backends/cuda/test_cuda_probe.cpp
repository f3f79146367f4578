// The seed-004 probes on cuda:0: every memory model and direction runs, matmul matches a naive host
// product, and MD5 matches hashlib and the host routine. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "core/md5.hpp"
#include "cuda_test_support.hpp"

namespace conveyor::test {
namespace {

class CudaProbe : public CudaDeviceTest {
 protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    if (IsSkipped()) return;
    probe_ = device().make_probe_target();
  }
  ProbeTarget& probe() { return *probe_; }

 private:
  std::unique_ptr<ProbeTarget> probe_;
};

TEST_F(CudaProbe, EveryModelAndDirectionRuns) {
  const auto models = probe().memory_models();
  ASSERT_EQ(models, (std::vector<MemoryModel>{MemoryModel::Pageable, MemoryModel::Pinned,
                                              MemoryModel::Mapped}));
  int device_to_device = 0;
  for (MemoryModel model : models) {
    for (Direction direction : probe().directions(model)) {
      device_to_device += direction == Direction::DeviceToDevice;
      // Growing, then shrinking: buffers are reused and reallocated.
      for (std::size_t bytes :
           {std::size_t{1}, std::size_t{4097}, std::size_t{3 << 20} + 7, std::size_t{64}}) {
        const double seconds = probe().transfer(direction, model, bytes);
        EXPECT_GT(seconds, 0);
        EXPECT_TRUE(std::isfinite(seconds));
      }
    }
    for (std::size_t bytes : {std::size_t{4}, std::size_t{1000}, std::size_t{2 << 20} + 3})
      EXPECT_GT(probe().memory_task(model, bytes), 0);
  }
  EXPECT_EQ(device_to_device, 1);
  EXPECT_TRUE(probe().directions(MemoryModel::Svm).empty());
  EXPECT_THROW(probe().memory_task(MemoryModel::Svm, 64), UsageError);
  EXPECT_THROW(probe().transfer(Direction::HostToDevice, MemoryModel::Host, 64), UsageError);
}

TEST_F(CudaProbe, Dispatch) {
  EXPECT_GT(probe().dispatch_enqueue(100), 0);
  EXPECT_GT(probe().dispatch_roundtrip(), 0);
  EXPECT_THROW(probe().dispatch_enqueue(0), UsageError);
}

TEST_F(CudaProbe, MatmulMatchesNaiveRowMajorProduct) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int n : {1, 2, 7, 64, 65}) {
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    std::vector<float> a(elements), b(elements), c(elements, -1.0f);
    std::generate(a.begin(), a.end(), [&] { return value(rng); });
    std::generate(b.begin(), b.end(), [&] { return value(rng); });
    EXPECT_GT(probe().matmul(n, a.data(), b.data(), c.data()), 0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        double expected = 0, magnitude = 0;
        for (int k = 0; k < n; ++k) {
          expected += double{a[i * n + k]} * b[k * n + j];
          magnitude += std::abs(double{a[i * n + k]} * b[k * n + j]);
        }
        ASSERT_NEAR(c[i * n + j], expected, 1e-5 * magnitude + 1e-6)
            << "C[" << i << "][" << j << "], n = " << n;
      }
    }
  }
  std::vector<float> none;
  EXPECT_THROW(probe().matmul(0, none.data(), none.data(), none.data()), UsageError);
}

TEST_F(CudaProbe, Md5MatchesHashlib) {
  const auto cases = md5_cases();
  std::vector<std::uint8_t> messages, digests(cases.size() * 16);
  for (const Md5Case& c : cases)
    messages.insert(messages.end(), c.message.begin(), c.message.end());
  EXPECT_GT(probe().md5(cases.size(), messages.data(), digests.data()), 0);
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(to_hex(&digests[i * 16], 16), cases[i].hex) << cases[i].what;
}

TEST_F(CudaProbe, Md5OfManyMessagesMatchesHost) {
  constexpr std::size_t kCount = 5000;  // several blocks of 256 threads, the last one partial
  std::mt19937 rng(64);
  std::vector<std::uint8_t> messages(kCount * 64), digests(kCount * 16);
  std::generate(messages.begin(), messages.end(), [&] { return static_cast<std::uint8_t>(rng()); });
  probe().md5(kCount, messages.data(), digests.data());
  for (std::size_t i = 0; i < kCount; ++i) {
    std::uint32_t words[16], expected[4];
    std::memcpy(words, &messages[i * 64], 64);
    core::md5_64(words, expected);
    ASSERT_EQ(std::memcmp(&digests[i * 16], expected, 16), 0) << "message " << i;
  }
}

}  // namespace
}  // namespace conveyor::test
