#pragma once
// An OpenCL device as a Conveyor device. Its context is created on first use, so listing devices
// costs no driver initialisation beyond the queries.
#include <memory>
#include <mutex>

#include "context.hpp"
#include "conveyor/device.hpp"
#include "device/driver.hpp"

namespace conveyor::backend::opencl {

class OpenCLDevice final : public Device, public device::DriverSource {
 public:
  OpenCLDevice(DeviceFacts facts, DeviceInfo info);

  std::unique_ptr<StreamArrays> make_stream_arrays(
      const StreamConfig& config) override;                   // opencl_stream.cpp
  std::unique_ptr<ProbeTarget> make_probe_target() override;  // opencl_probe_target.cpp
  std::unique_ptr<device::DeviceDriver> make_driver(
      const device::DriverConfig& config) override;  // opencl_runtime_driver.cpp
  std::unique_ptr<DeviceStream> make_device_stream(
      const DeviceStreamConfig& config) override;  // pipeline.cpp

  const DeviceFacts& facts() const { return facts_; }
  std::shared_ptr<DeviceContext> context();

 private:
  DeviceFacts facts_;
  std::mutex mutex_;
  std::shared_ptr<DeviceContext> context_;
};

}  // namespace conveyor::backend::opencl
