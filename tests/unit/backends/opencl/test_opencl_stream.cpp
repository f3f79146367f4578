#include <gtest/gtest.h>

#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "unit/backends/opencl/opencl_fixture.hpp"

namespace conveyor::test {
namespace {

using OpenCLStream = OpenCLTest;

// Small integers keep every intermediate exact, so device and host must agree bit for bit whether
// or not the device contracts Triad into a fused multiply-add.
TEST_F(OpenCLStream, KernelsMatchTheHostOnOddSizes) {
  const double scalar = 3.0;
  for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{1000}, std::size_t{65537}}) {
    SCOPED_TRACE(n);
    StreamConfig config;
    config.elements = n;
    auto arrays = device().make_stream_arrays(config);
    arrays->initialize(1.0, 2.0, 0.0);
    std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.0), da, db, dc;
    arrays->read_back(da, db, dc);
    ASSERT_EQ(da, a);
    ASSERT_EQ(db, b);
    ASSERT_EQ(dc, c);

    for (StreamKernel kernel : kStreamKernels) {
      double dot = -1;
      double seconds = arrays->run(kernel, scalar, &dot);
      EXPECT_GE(seconds, 0.0);
      double expected_dot = 0;
      for (std::size_t i = 0; i < n; ++i) {
        switch (kernel) {
          case StreamKernel::Copy:
            c[i] = a[i];
            break;
          case StreamKernel::Scale:
            b[i] = scalar * c[i];
            break;
          case StreamKernel::Add:
            c[i] = a[i] + b[i];
            break;
          case StreamKernel::Triad:
            a[i] = b[i] + scalar * c[i];
            break;
          case StreamKernel::Dot:
            expected_dot += a[i] * b[i];
            break;
        }
      }
      if (kernel == StreamKernel::Dot) EXPECT_EQ(dot, expected_dot);
      arrays->read_back(da, db, dc);
      EXPECT_EQ(da, a);
      EXPECT_EQ(db, b);
      EXPECT_EQ(dc, c);
    }
    EXPECT_EQ(arrays->placement()["device"], device().info().id);
  }
}

TEST_F(OpenCLStream, DotWithoutResultPointerStillRuns) {
  StreamConfig config;
  config.elements = 4099;
  auto arrays = device().make_stream_arrays(config);
  arrays->initialize(0.5, 2.0, 0.0);
  EXPECT_GE(arrays->run(StreamKernel::Dot, 0.0, nullptr), 0.0);
  double dot = 0;
  arrays->run(StreamKernel::Dot, 0.0, &dot);
  EXPECT_EQ(dot, 4099.0);
}

TEST_F(OpenCLStream, RefusesArraysThatDoNotFit) {
  StreamConfig config;
  config.elements = device().info().memory_bytes / sizeof(double);  // each array alone fills memory
  EXPECT_THROW(device().make_stream_arrays(config), UsageError);
  config.elements = 0;
  EXPECT_THROW(device().make_stream_arrays(config), UsageError);
}

}  // namespace
}  // namespace conveyor::test
