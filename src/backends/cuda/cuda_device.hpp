#pragma once
// One CUDA device as a Conveyor device. Its facts are read without creating a context, so listing
// devices stays cheap; memory is touched only by the STREAM arrays and probe targets it makes.
#include "conveyor/device.hpp"
#include "device/driver.hpp"

namespace conveyor::backend::cuda {

class CudaDevice final : public Device, public device::DriverSource {
 public:
  /// Reads the properties of runtime device `ordinal`; throws DeviceError when the driver refuses.
  explicit CudaDevice(int ordinal);
  int ordinal() const { return ordinal_; }

  std::unique_ptr<StreamArrays> make_stream_arrays(
      const StreamConfig& config) override;                   // cuda_stream.cpp
  std::unique_ptr<ProbeTarget> make_probe_target() override;  // cuda_probe.cpp
  std::unique_ptr<device::DeviceDriver> make_driver(
      const device::DriverConfig& config) override;  // cuda_runtime_driver.cpp
  std::unique_ptr<DeviceStream> make_device_stream(
      const DeviceStreamConfig& config) override;  // pipeline.cpp

 private:
  int ordinal_;
};

}  // namespace conveyor::backend::cuda
