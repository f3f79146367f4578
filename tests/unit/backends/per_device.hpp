#pragma once
// A backend test is written once and runs on every device kind: TEST_P(Suite, ...) with this
// fixture, then CONVEYOR_INSTANTIATE_PER_DEVICE(Suite). A device that is not present here is
// skipped, never passed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "conveyor/device.hpp"

namespace conveyor::test {

class PerDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    for (const auto& d : all_devices())
      if (d->info().id == GetParam()) device_ = d;
    if (!device_) GTEST_SKIP() << GetParam() << " is not present on this machine";
  }
  Device& device() { return *device_; }

 private:
  std::shared_ptr<Device> device_;
};

inline std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == ':') ch = '_';
  return name;
}

}  // namespace conveyor::test

#define CONVEYOR_INSTANTIATE_PER_DEVICE(Suite)                                             \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::Values("cpu", "opencl:0", "cuda:0"), \
                           ::conveyor::test::device_test_name)
