#pragma once
// Runtime tests written once and run per device: "emu" (the emulated device, always present),
// "opencl:0" (PoCL in CI) and "cuda:0"; an absent device skips.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "conveyor/device.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor::test {

class RuntimePerDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "emu") return;
    bool present = false;
    for (const auto& d : all_devices()) present |= d->info().id == GetParam();
    if (!present) GTEST_SKIP() << GetParam() << " is not present on this machine";
  }
  /// A runtime with this test's device.
  std::unique_ptr<Runtime> make_runtime(RuntimeOptions options) const {
    if (GetParam() == "emu") return make_emulated_runtime(std::move(options));
    options.devices = {GetParam()};
    if (options.perf_models.empty()) options.perf_models = "none";  // never the user's cache
    return std::make_unique<Runtime>(std::move(options));
  }
  DeviceKind kind() const {
    if (GetParam().rfind("opencl", 0) == 0) return DeviceKind::OpenCL;
    return DeviceKind::Cuda;  // the emulated device runs cuda implementations
  }
};

inline std::string runtime_device_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == ':') ch = '_';
  return name;
}

}  // namespace conveyor::test

#define CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(Suite)                                     \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::Values("emu", "opencl:0", "cuda:0"), \
                           ::conveyor::test::runtime_device_name)
