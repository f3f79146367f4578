// Device streams (OpenCL queues, CUDA copy engines) give the plain kernels' results for every size;
// a device that is absent skips.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/pipeline.hpp"
#include "unit/backends/per_device.hpp"

namespace conveyor::test {
namespace {

class DeviceStreamTest : public PerDevice {
 protected:
  std::string id() const { return GetParam(); }
};

TEST_P(DeviceStreamTest, MatchesThePlainKernels) {
  constexpr std::size_t kBlock = 512;  // doubles
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock + 5}) {
    for (StreamKernel k : kStreamKernels) {
      std::vector<double> a(n + 1), b(n + 1), c(n + 1);
      // After the arrays: a stream may keep them page-locked until it is destroyed.
      auto stream = make_device_stream(id(), {kBlock * sizeof(double), 2});
      for (std::size_t i = 0; i <= n; ++i) {
        a[i] = 1.0 + static_cast<double>(i % 7);
        b[i] = 2.0 - static_cast<double>(i % 5);
        c[i] = 0.5 * static_cast<double>(i % 3);
      }
      a[n] = b[n] = c[n] = -1.0;  // sentinels
      std::vector<double> ea = a, eb = b, ec = c;
      double want = 0;
      for (std::size_t i = 0; i < n; ++i) switch (k) {
          case StreamKernel::Copy:
            ec[i] = ea[i];
            break;
          case StreamKernel::Scale:
            eb[i] = 3.0 * ec[i];
            break;
          case StreamKernel::Add:
            ec[i] = ea[i] + eb[i];
            break;
          case StreamKernel::Triad:
            ea[i] = eb[i] + 3.0 * ec[i];
            break;
          case StreamKernel::Dot:
            want += ea[i] * eb[i];
            break;
        }
      double got = stream->run(k, a.data(), b.data(), c.data(), n, 3.0);
      SCOPED_TRACE(::testing::Message() << "n=" << n << " kernel=" << traits(k).name);
      EXPECT_EQ(a, ea);
      EXPECT_EQ(b, eb);
      EXPECT_EQ(c, ec);
      if (k == StreamKernel::Dot) EXPECT_NEAR(got, want, 1e-12 * std::fabs(want));
      EXPECT_FALSE(stream->describe().empty());
    }
  }
}

CONVEYOR_INSTANTIATE_PER_ACCELERATOR(DeviceStreamTest);

TEST(DeviceStreamErrors, HostCpuHasNoDeviceStream) {
  EXPECT_THROW(make_device_stream("cpu", {}), UsageError);
  EXPECT_THROW(make_device_stream("opencl:99", {}), UsageError);
  EXPECT_THROW(make_device_stream("opencl", {100, 2}), UsageError);
  EXPECT_THROW(make_device_stream("opencl", {4096, 0}), UsageError);
}

}  // namespace
}  // namespace conveyor::test
