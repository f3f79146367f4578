#pragma once
// Runtime tests written once and run per device: "emu" (the emulated device, always present) and
// the devices of every compiled-in backend (PoCL's "opencl:0" in CI, "cuda:N" where lent); a
// backend compiled in without a device gives one "<kind>:0" instance that skips.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"
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

/// "emu", then the accelerators (unit/backends/per_device.hpp's list).
inline std::vector<std::string> runtime_test_devices() {
  std::vector<std::string> ids{"emu"};
  for (auto& id : test_devices(false)) ids.push_back(std::move(id));
  return ids;
}

}  // namespace conveyor::test

#define CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(Suite)                                    \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite,                                                \
                           ::testing::ValuesIn(::conveyor::test::runtime_test_devices()), \
                           ::conveyor::test::device_test_name)
