#pragma once
// Tests written once and run on every device: TEST_P(Suite, ...) with the PerDevice fixture, then
// CONVEYOR_INSTANTIATE_PER_DEVICE(Suite) (the CPU and the accelerators) or
// CONVEYOR_INSTANTIATE_PER_ACCELERATOR(Suite) (OpenCL and CUDA devices only). The list follows the
// build and the machine: every device the compiled-in backends found, and "<kind>:0" for a backend
// compiled in without any, whose instance skips saying so, never passes. (The runtime's tests add
// the emulated device: unit/runtime/runtime_devices.hpp.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conveyor/device.hpp"

namespace conveyor::test {

/// "cpu" (when `with_cpu`), then each accelerator backend's devices, or "<kind>:0" where it has
/// none.
inline std::vector<std::string> test_devices(bool with_cpu) {
  std::vector<std::string> ids;
  if (with_cpu) ids.push_back("cpu");
  for (const auto& backend : backends()) {
    if (backend->kind() == DeviceKind::Cpu) continue;
    for (const auto& d : backend->devices()) ids.push_back(d->info().id);
    if (backend->devices().empty()) ids.push_back(std::string(to_string(backend->kind())) + ":0");
  }
  return ids;
}

/// The device named by the test's parameter; skips where it is not present.
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

/// "cuda:0" -> "cuda_0" (test names allow no colon).
inline std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == ':') ch = '_';
  return name;
}

}  // namespace conveyor::test

#define CONVEYOR_INSTANTIATE_PER_DEVICE(Suite)                                        \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite,                                            \
                           ::testing::ValuesIn(::conveyor::test::test_devices(true)), \
                           ::conveyor::test::device_test_name)
#define CONVEYOR_INSTANTIATE_PER_ACCELERATOR(Suite)                                    \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite,                                             \
                           ::testing::ValuesIn(::conveyor::test::test_devices(false)), \
                           ::conveyor::test::device_test_name)
