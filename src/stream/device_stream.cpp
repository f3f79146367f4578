// make_device_stream(): a staged stream through an OpenCL or CUDA device, by device id.
#include <fmt/format.h>

#include "conveyor/device.hpp"
#include "conveyor/pipeline.hpp"

namespace conveyor {

std::unique_ptr<DeviceStream> Device::make_device_stream(const DeviceStreamConfig&) {
  throw UsageError(
      fmt::format("device {} has no staged stream (use opencl[:N] or cuda[:N])", info().id));
}

std::unique_ptr<DeviceStream> make_device_stream(std::string_view device_id,
                                                 const DeviceStreamConfig& config) {
  if (config.depth < 1 || config.depth > 64)
    throw UsageError(fmt::format("device stream: depth must be 1..64, not {}", config.depth));
  if (config.block_bytes < 64 || config.block_bytes % 64 != 0)
    throw UsageError("device stream: block must be a multiple of 64 bytes");
  std::string id(device_id);
  if (id == "opencl" || id == "cuda") id += ":0";
  return find_device(id)->make_device_stream(config);
}

}  // namespace conveyor
