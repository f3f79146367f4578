#pragma once
// The host CPU as a Conveyor device: all cores, computing from host memory.
#include "conveyor/device.hpp"

namespace conveyor::backend::cpu {

class CpuDevice final : public Device {
 public:
  CpuDevice();
  std::unique_ptr<StreamArrays> make_stream_arrays(
      const StreamConfig& config) override;                   // cpu_stream.cpp
  std::unique_ptr<ProbeTarget> make_probe_target() override;  // cpu_probe.cpp
};

}  // namespace conveyor::backend::cpu
