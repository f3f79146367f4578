// The CUDA backend's device list. On a machine without a GPU (or driver) it must have no devices
// and say why; with one, every device must be fully described.
#include <gtest/gtest.h>

#include <string>

#include "conveyor/error.hpp"
#include "conveyor/records.hpp"
#include "cuda_test_support.hpp"

namespace conveyor::test {
namespace {

TEST(CudaBackend, HasDevicesOrSaysWhyNot) {
  const Backend* backend = cuda_backend();
  if (!backend) GTEST_SKIP() << "the CUDA backend is not compiled in";
  if (backend->devices().empty()) {
    EXPECT_EQ(backend->status().rfind("no CUDA device (", 0), 0u) << backend->status();
    return;
  }
  EXPECT_EQ(backend->status(), "");
  for (std::size_t i = 0; i < backend->devices().size(); ++i) {
    const DeviceInfo& info = backend->devices()[i]->info();
    EXPECT_EQ(info.id, "cuda:" + std::to_string(i));
    EXPECT_EQ(info.kind, DeviceKind::Cuda);
    EXPECT_FALSE(info.name.empty());
    EXPECT_EQ(info.platform.rfind("CUDA driver ", 0), 0u) << info.platform;
    EXPECT_GT(info.memory_bytes, 0u);
    EXPECT_GT(info.compute_units, 0);
    EXPECT_GT(info.peak_gbs, 0);
    for (const char* key : {"compute_capability", "pci_bus_id", "copy_engines", "l2_bytes",
                            "concurrent_managed_access", "sm_clock_mhz"})
      EXPECT_TRUE(device_details(info).contains(key)) << key;
  }
}

TEST(CudaBackend, AbsentDeviceIsAUsageErrorNamingTheReason) {
  const Backend* backend = cuda_backend();
  if (!backend) GTEST_SKIP() << "the CUDA backend is not compiled in";
  const std::string missing = "cuda:" + std::to_string(backend->devices().size());
  try {
    find_device(missing);
    FAIL() << missing << " was found";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(missing), std::string::npos) << message;
    if (backend->devices().empty())
      EXPECT_NE(message.find(backend->status()), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace conveyor::test
