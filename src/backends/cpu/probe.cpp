#include "conveyor/probe.hpp"

#include "conveyor/error.hpp"
#include "cpu_device.hpp"

namespace conveyor::cpu {

std::unique_ptr<ProbeTarget> CpuDevice::make_probe_target() {
  throw Error("cpu probe: not built yet");
}

}  // namespace conveyor::cpu
