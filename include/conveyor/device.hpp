#pragma once
/// Devices and the backends that find them. Backends (cpu, opencl, cuda) are compiled in when their
/// toolkit is found and register at run time; a backend without a usable driver simply has no
/// devices.
///
///   for (auto& d : conveyor::all_devices())
///     std::cout << d->info().id << " " << d->info().name << "\n";
///   auto gpu = conveyor::find_device("cuda:0");  // throws UsageError naming the devices present
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace conveyor {

enum class DeviceKind { Cpu, OpenCL, Cuda };
std::string_view to_string(DeviceKind kind);

struct DeviceInfo {
  std::string id;  ///< "cpu", "opencl:0", "cuda:1"
  DeviceKind kind = DeviceKind::Cpu;
  std::string name;                ///< marketing name, e.g. "NVIDIA H100 80GB HBM3"
  std::string platform;            ///< driver / platform and version
  std::uint64_t memory_bytes = 0;  ///< memory the device can address (host RAM for the CPU)
  double peak_gbs = 0;             ///< theoretical memory bandwidth in GB/s (1e9 B/s); 0 = unknown
  int compute_units = 0;           ///< cores, SMs or OpenCL compute units
  /// Backend-specific facts for `conveyor devices`, as the text of a JSON object.
  std::string details = "{}";
};

class StreamArrays;
struct StreamConfig;
class ProbeTarget;
class DeviceStream;
struct DeviceStreamConfig;

/// One compute device with the memory it computes from.
class Device {
 public:
  virtual ~Device() = default;
  const DeviceInfo& info() const { return info_; }

  /// Allocates the three STREAM arrays on this device and initialises nothing yet.
  /// Throws UsageError when they cannot fit in the device's memory.
  virtual std::unique_ptr<StreamArrays> make_stream_arrays(const StreamConfig& config) = 0;
  /// The offload-cost probes of seed 004 for this device.
  virtual std::unique_ptr<ProbeTarget> make_probe_target() = 0;
  /// A staged stream of host arrays through this device (pipeline.hpp). The default throws
  /// UsageError: the backend has none.
  virtual std::unique_ptr<DeviceStream> make_device_stream(const DeviceStreamConfig& config);

 protected:
  DeviceInfo info_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const = 0;
  /// The devices found. Empty when the toolkit is compiled in but no driver or device is present.
  virtual const std::vector<std::shared_ptr<Device>>& devices() const = 0;
  /// Why devices() is empty ("no OpenCL platform found"), or empty when all is well.
  virtual std::string status() const = 0;
};

/// Every compiled-in backend, initialised once on first use (thread-safe).
const std::vector<std::unique_ptr<Backend>>& backends();
/// The devices of every backend, the CPU first.
std::vector<std::shared_ptr<Device>> all_devices();
/// Finds "cpu" (or "cpu:0"), "opencl:N", "cuda:N". Throws UsageError naming the devices that exist.
std::shared_ptr<Device> find_device(std::string_view id);

}  // namespace conveyor
