#pragma once
// For tests only: a Runtime whose devices include drivers built by the test (emulated devices that
// run anywhere, under the sanitizers too).
#include <memory>
#include <vector>

#include "conveyor/runtime.hpp"
#include "runtime/runtime_impl.hpp"

namespace conveyor::runtime {

struct RuntimeAccess {
  static std::unique_ptr<Runtime> make(RuntimeOptions options,
                                       std::vector<std::unique_ptr<device::DeviceDriver>> drivers) {
    return std::unique_ptr<Runtime>(
        new Runtime(std::make_unique<Runtime::Impl>(std::move(options), std::move(drivers))));
  }
};

}  // namespace conveyor::runtime
