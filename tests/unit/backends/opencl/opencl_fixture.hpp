#pragma once
// Tests of the OpenCL backend run on its first device (PoCL in CI) and skip where there is none.
#include <gtest/gtest.h>

#include <memory>

#include "conveyor/device.hpp"

namespace conveyor::test {

inline std::shared_ptr<Device> first_opencl_device() {
  for (const auto& backend : backends())
    if (backend->kind() == DeviceKind::OpenCL && !backend->devices().empty())
      return backend->devices().front();
  return nullptr;
}

class OpenCLTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = first_opencl_device();
    if (!device_) GTEST_SKIP() << "no OpenCL device on this machine";
  }
  Device& device() { return *device_; }

 private:
  std::shared_ptr<Device> device_;
};

}  // namespace conveyor::test
