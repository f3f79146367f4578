#include <gtest/gtest.h>

#include <string>

#include "backends/opencl/cl_error.hpp"
#include "conveyor/records.hpp"
#include "unit/backends/opencl/opencl_fixture.hpp"

namespace conveyor::test {
namespace {

TEST(OpenCLErrors, NamesKnownCodes) {
  EXPECT_EQ(backend::opencl::cl_error_name(0), "CL_SUCCESS");
  EXPECT_EQ(backend::opencl::cl_error_name(-5), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(backend::opencl::cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_EQ(backend::opencl::cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_EQ(backend::opencl::cl_error_name(-9999), "unknown OpenCL error");
}

TEST(OpenCLErrors, FailedCallThrowsDeviceErrorWithCallErrorFileAndLine) {
  EXPECT_NO_THROW(backend::opencl::check_cl(0, "clFinish(queue)", "src/x.cpp", 3));
  try {
    backend::opencl::check_cl(-5, "clFinish(queue)", "/a/b/probe.cpp", 42);
    FAIL() << "no exception";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "clFinish(queue) failed: CL_OUT_OF_RESOURCES (-5) at probe.cpp:42");
  }
}

TEST(OpenCLBackend, StatusExplainsAnEmptyDeviceList) {
  for (const auto& backend : backends()) {
    if (backend->kind() != DeviceKind::OpenCL) continue;
    if (backend->devices().empty())
      EXPECT_FALSE(backend->status().empty());
    else
      EXPECT_EQ(backend->status(), "");
    return;
  }
  GTEST_SKIP() << "OpenCL backend not compiled in";
}

using OpenCLDevices = OpenCLTest;

TEST_F(OpenCLDevices, AreNumberedInOrderAndDescribed) {
  for (const auto& backend : backends()) {
    if (backend->kind() != DeviceKind::OpenCL) continue;
    int n = 0;
    for (const auto& d : backend->devices()) {
      const DeviceInfo& info = d->info();
      EXPECT_EQ(info.id, "opencl:" + std::to_string(n++));
      EXPECT_EQ(info.kind, DeviceKind::OpenCL);
      EXPECT_FALSE(info.name.empty());
      EXPECT_FALSE(info.platform.empty());
      EXPECT_GT(info.memory_bytes, 0u);
      EXPECT_GT(info.compute_units, 0);
      for (const char* key : {"device_type", "opencl_c_version", "max_alloc_bytes",
                              "local_mem_bytes", "fp64", "svm", "driver_version"})
        EXPECT_TRUE(device_details(info).contains(key)) << key;
      EXPECT_EQ(find_device(info.id), d);
    }
  }
}

}  // namespace
}  // namespace conveyor::test
