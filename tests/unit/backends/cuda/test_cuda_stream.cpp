// STREAM kernels on cuda:0 against the same kernels computed on the host, on sizes that exercise
// partial blocks and the odd element left over by double2 loads. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "cuda_test_support.hpp"

namespace conveyor::test {
namespace {

class CudaStream : public CudaDeviceTest {};

void expect_all(const std::vector<double>& values, double expected, const char* array,
                std::size_t n) {
  ASSERT_EQ(values.size(), n) << array;
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_DOUBLE_EQ(values[i], expected) << array << "[" << i << "] of " << n;
}

TEST_F(CudaStream, KernelsMatchHostOnOddSizes) {
  constexpr double kScalar = 0.4;
  for (StreamVariant variant : {StreamVariant::Standard, StreamVariant::Tuned}) {
    for (std::size_t n : {1, 2, 3, 31, 1023, 1025, 4097, 100003}) {
      StreamConfig config;
      config.elements = n;
      config.variant = variant;
      auto arrays = device().make_stream_arrays(config);
      arrays->initialize(1.0, 2.0, 0.5);
      double a = 1.0, b = 2.0, c = 0.5;
      // Two rounds in STREAM order: every kernel changes every element, so a skipped one shows.
      for (int round = 0; round < 2; ++round) {
        arrays->run(StreamKernel::Copy, kScalar, nullptr);
        c = a;
        arrays->run(StreamKernel::Scale, kScalar, nullptr);
        b = kScalar * c;
        arrays->run(StreamKernel::Add, kScalar, nullptr);
        c = a + b;
        arrays->run(StreamKernel::Triad, kScalar, nullptr);
        a = b + kScalar * c;
      }
      double dot = 0;
      const double seconds = arrays->run(StreamKernel::Dot, kScalar, &dot);
      EXPECT_GT(seconds, 0);
      EXPECT_NEAR(dot, a * b * static_cast<double>(n), 1e-12 * a * b * static_cast<double>(n))
          << "n = " << n;
      std::vector<double> ha, hb, hc;
      arrays->read_back(ha, hb, hc);
      expect_all(ha, a, "a", n);
      expect_all(hb, b, "b", n);
      expect_all(hc, c, "c", n);
      EXPECT_EQ(arrays->placement().value("device", ""), device().info().id);
    }
  }
}

TEST_F(CudaStream, RefusesArraysThatDoNotFit) {
  StreamConfig config;
  config.elements = device().info().memory_bytes / sizeof(double);  // three of these cannot fit
  EXPECT_THROW(device().make_stream_arrays(config), UsageError);
  config.elements = 0;
  EXPECT_THROW(device().make_stream_arrays(config), UsageError);
}

}  // namespace
}  // namespace conveyor::test
