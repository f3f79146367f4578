#pragma once
/// Offload-cost probes (seed 004): bandwidth per link and memory model, dispatch latency Td, memory
/// attach latency Tm, and the model T = Td + Tm + bytes(read + write) / BW.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace conveyor {

enum class Direction { HostToDevice, DeviceToHost, DeviceToDevice };
std::string_view to_string(Direction direction);  ///< "h2d", "d2h", "d2d"

/// How host data meets the device.
enum class MemoryModel {
  Host,      ///< the CPU itself: data already where it computes
  Pageable,  ///< ordinary malloc'd host memory, copied by the driver through a bounce buffer
  Pinned,    ///< page-locked host memory, copied by DMA
  Mapped,    ///< zero-copy: the device reads and writes host memory in place
  Svm,       ///< OpenCL 2 shared virtual memory (coarse-grained buffers)
};
std::string_view to_string(MemoryModel model);  ///< "host", "pageable", "pinned", "mapped", "svm"

/// The probes one device answers. All times are seconds; every call completes before it returns.
class ProbeTarget {
 public:
  virtual ~ProbeTarget() = default;

  /// Memory models this device supports, in the order to report them. The CPU answers {Host}.
  virtual std::vector<MemoryModel> memory_models() const = 0;
  /// Directions transfer() supports for `model` (the CPU: DeviceToDevice only, i.e. memcpy).
  virtual std::vector<Direction> directions(MemoryModel model) const = 0;
  /// One copy of `bytes` in `direction`, host side in memory of kind `model`.
  virtual double transfer(Direction direction, MemoryModel model, std::size_t bytes) = 0;

  /// Host cost of enqueueing one empty kernel: mean over `count` back-to-back enqueues (then
  /// synchronised).
  virtual double dispatch_enqueue(int count) = 0;
  /// Launch of one empty kernel and wait for its completion.
  virtual double dispatch_roundtrip() = 0;
  /// One task with memory: `bytes` of host data made visible to the device under `model`, a kernel
  /// that reads and writes every element, and the result visible on the host again. Tm is the
  /// intercept of a line fitted to this over small sizes, minus Td; BW is bytes(read + write) over
  /// this at large sizes.
  virtual double memory_task(MemoryModel model, std::size_t bytes) = 0;

  /// The application pair. Both include moving inputs to the device and results back.
  /// C = A * B for n x n row-major single-precision matrices.
  virtual double matmul(int n, const float* a, const float* b, float* c) = 0;
  /// MD5 digests (16 bytes each) of `count` independent 64-byte messages.
  virtual double md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) = 0;
};

}  // namespace conveyor
