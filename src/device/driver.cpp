#include "device/driver.hpp"

#include "conveyor/error.hpp"

namespace conveyor {

namespace device {

std::unique_ptr<DeviceDriver> make_driver(Device& device, const DriverConfig& config) {
  if (auto* source = dynamic_cast<DriverSource*>(&device)) return source->make_driver(config);
  throw UsageError("device '" + device.info().id +
                   "' cannot run runtime tasks (no driver in its backend)");
}

void DeviceDriver::enqueue_peer(void*, const DeviceDriver& src_driver, const void*, std::size_t) {
  throw Error(id() + ": no peer copy from " + src_driver.id());
}

void DeviceDriver::enqueue_write_back(const HostRegion& dst, const void* src, DoneCallback done,
                                      void* user) {
  enqueue_d2h(dst, src);
  notify(done, user);
}

void* DeviceDriver::adopt_external(void*, std::size_t) {
  throw UsageError(id() +
                   " cannot take memory allocated outside the runtime (its buffers are not raw "
                   "device pointers); register host memory instead");
}

void DeviceDriver::copy_from_host(void*, const HostRegion&) {
  throw Error(id() + ": no synchronous copy from the host (it takes no external memory)");
}

void DeviceDriver::copy_device_2d(void*, std::size_t, const void*, std::size_t, std::size_t,
                                  std::size_t) {
  throw UsageError(id() +
                   " cannot copy between regions of its memory (it takes no memory allocated "
                   "outside the runtime); register host memory instead");
}

}  // namespace device
}  // namespace conveyor
