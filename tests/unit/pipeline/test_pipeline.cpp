// Pipeline results equal the plain kernels for every host mover, strategy and size (multiples of
// the block, tails, less than one block, empty), on one and two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

#include "conveyor/pipeline.hpp"
#include "stream/cpu_kernels.hpp"

namespace conveyor::test {
namespace {

constexpr std::size_t kBlockBytes = 256;  // 32 doubles: many blocks from small arrays
constexpr std::size_t kBlock = kBlockBytes / sizeof(double);

struct Arrays {
  explicit Arrays(std::size_t n) : a(n + 1), b(n + 1), c(n + 1) {
    for (std::size_t i = 0; i < n + 1; ++i) {
      a[i] = 1.0 + 0.25 * static_cast<double>(i % 97);
      b[i] = 2.0 - 0.125 * static_cast<double>(i % 89);
      c[i] = 0.5 + 0.0625 * static_cast<double>(i % 83);
    }
    // The element past the end is a sentinel no run may touch.
    a[n] = b[n] = c[n] = -999.0;
  }
  std::vector<double> a, b, c;
};

// The plain kernel over the whole arrays: the reference.
double plain(StreamKernel k, Arrays& x, std::size_t n, double s) {
  const auto& kern = stream::cpu_kernels(StreamVariant::Tuned);
  switch (k) {
    case StreamKernel::Copy:
      kern.copy(x.c.data(), x.a.data(), n);
      return 0;
    case StreamKernel::Scale:
      kern.scale(x.b.data(), x.c.data(), s, n);
      return 0;
    case StreamKernel::Add:
      kern.add(x.c.data(), x.a.data(), x.b.data(), n);
      return 0;
    case StreamKernel::Triad:
      kern.triad(x.a.data(), x.b.data(), x.c.data(), s, n);
      return 0;
    case StreamKernel::Dot:
      return kern.dot(x.a.data(), x.b.data(), n);
  }
  return 0;
}

using Param = std::tuple<std::string, PipelineStrategy, int>;  // mover, strategy, threads

class PipelineEquivalence : public ::testing::TestWithParam<Param> {
 protected:
  std::unique_ptr<Pipeline> make(int depth = 3) {
    auto [mover, strategy, threads] = GetParam();
    MoverOptions mo;
    if (mover == "thread2") mo.copy_threads = 2;
    PipelineConfig config;
    config.threads = threads;
    config.binding = ThreadBinding::None;
    config.block_bytes = kBlockBytes;
    config.depth = depth;
    config.strategy = strategy;
    return std::make_unique<Pipeline>(make_mover(mover == "thread2" ? "thread" : mover, mo),
                                      config);
  }
};

TEST_P(PipelineEquivalence, StreamKernelsMatchPlainKernels) {
  auto pipeline = make();
  const std::size_t sizes[] = {
      0, 1, 7, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock, 3 * kBlock + 5, 1000, 4099};
  for (std::size_t n : sizes) {
    for (StreamKernel k : kStreamKernels) {
      Arrays expected(n), got(n);
      double want = plain(k, expected, n, 3.0);
      double have = pipeline->run(k, got.a.data(), got.b.data(), got.c.data(), n, 3.0);
      SCOPED_TRACE(::testing::Message() << "n=" << n << " kernel=" << traits(k).name);
      EXPECT_EQ(got.a, expected.a);
      EXPECT_EQ(got.b, expected.b);
      EXPECT_EQ(got.c, expected.c);
      if (k == StreamKernel::Dot) EXPECT_NEAR(have, want, 1e-12 * std::fabs(want) + 1e-300);
    }
  }
}

TEST_P(PipelineEquivalence, UserKernelAndRepeatedRuns) {
  auto pipeline = make(1);
  BlockKernel fma{2, true, [](const double* x, const double* y, double* out, std::size_t n) {
                    double sum = 0;
                    for (std::size_t i = 0; i < n; ++i) sum += out[i] = x[i] * y[i] + 1.0;
                    return sum;
                  }};
  const std::size_t n = 5 * kBlock + 3;
  std::vector<double> x(n), y(n), out(n, 0.0), want(n);
  std::iota(x.begin(), x.end(), 1.0);
  std::iota(y.begin(), y.end(), -3.0);
  double want_sum = 0;
  for (std::size_t i = 0; i < n; ++i) want_sum += want[i] = x[i] * y[i] + 1.0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    double sum = pipeline->run(fma, {x.data(), y.data(), out.data(), n});
    EXPECT_EQ(out, want);
    EXPECT_DOUBLE_EQ(sum, want_sum);
  }
}

INSTANTIATE_TEST_SUITE_P(Movers, PipelineEquivalence,
                         ::testing::Combine(::testing::Values("thread", "thread2", "prefetch"),
                                            ::testing::Values(PipelineStrategy::All,
                                                              PipelineStrategy::Split),
                                            ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(to_string(std::get<1>(info.param))) + "_" +
                                  std::to_string(std::get<2>(info.param)) + "t";
                         });

TEST(PipelineConfigTest, RejectsBadSettings) {
  PipelineConfig config;
  config.block_bytes = 100;
  EXPECT_THROW(Pipeline(make_mover("thread"), config), UsageError);
  config = {};
  config.depth = 0;
  EXPECT_THROW(Pipeline(make_mover("thread"), config), UsageError);
  config = {};
  config.strategy = PipelineStrategy::Auto;
  EXPECT_THROW(Pipeline(make_mover("thread"), config), UsageError);
  EXPECT_THROW(Pipeline(nullptr, PipelineConfig{}), UsageError);
  EXPECT_EQ(parse_pipeline_strategy("split"), PipelineStrategy::Split);
  EXPECT_THROW(parse_pipeline_strategy("some"), UsageError);
}

}  // namespace
}  // namespace conveyor::test
