#pragma once
// Test access to the host side of the OpenCL probe target, so that tests can check the data that
// goes through transfer() and memory_task(). Free of OpenCL headers: tests reach it by
//   auto* hooks = dynamic_cast<conveyor::backend::opencl::ProbeHooks*>(target.get());
#include <cstddef>
#include <cstdint>

#include "conveyor/probe.hpp"

namespace conveyor::backend::opencl {

class ProbeHooks {
 public:
  /// memory_task() computes x = x * kTaskScale + kTaskOffset on every float, in place.
  static constexpr float kTaskScale = 0.5f;
  static constexpr float kTaskOffset = 1.0f;

  virtual ~ProbeHooks() = default;
  /// The host memory transfer(h2d, model, bytes) reads from and transfer(d2h, model, bytes) writes
  /// to (allocated on first use; stable until a larger size is asked for).
  virtual std::uint8_t* transfer_host_side(MemoryModel model, std::size_t bytes) = 0;
  /// The host-visible floats memory_task(model, bytes) works on (same lifetime rule).
  virtual float* task_host_side(MemoryModel model, std::size_t bytes) = 0;
};

}  // namespace conveyor::backend::opencl
