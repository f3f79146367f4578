// Placeholder until the opencl backend lands: compiled in, finds no devices.
#include "conveyor/device.hpp"

namespace conveyor {
namespace {

class PendingBackend final : public Backend {
 public:
  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
  std::string status() const override { return "backend not built yet"; }

 private:
  std::vector<std::shared_ptr<Device>> devices_;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<PendingBackend>(); }

}  // namespace conveyor
