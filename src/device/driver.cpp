#include "device/driver.hpp"

#include "conveyor/error.hpp"

namespace conveyor {

std::unique_ptr<runtime::DeviceDriver> Device::make_driver(const runtime::DriverConfig&) {
  throw UsageError("device '" + info_.id + "' cannot run runtime tasks (no driver in its backend)");
}

namespace runtime {

void DeviceDriver::enqueue_peer(void*, const DeviceDriver& src_driver, const void*, std::size_t) {
  throw Error(id() + ": no peer copy from " + src_driver.id());
}

}  // namespace runtime
}  // namespace conveyor
