// The CUDA backend: finds the devices the CUDA runtime sees. No device, no driver or a driver too
// old for this runtime is not an error: the backend then has no devices and says why in status().
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "cuda_device.hpp"

namespace conveyor::backend {
namespace cuda {
namespace {

// 12040 -> "12.4"
std::string version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  CONVEYOR_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  cudaDeviceProp prop{};
  CONVEYOR_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain (kHz, bits).
  const int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  const int sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  int driver = 0, runtime = 0;
  CONVEYOR_CUDA_CHECK(cudaDriverGetVersion(&driver));
  CONVEYOR_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  char bus_id[32] = {};
  CONVEYOR_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));

  info_.id = fmt::format("cuda:{}", ordinal);
  info_.kind = DeviceKind::Cuda;
  info_.name = prop.name;
  info_.platform =
      fmt::format("CUDA driver {} / runtime {}", version_text(driver), version_text(runtime));
  info_.memory_bytes = prop.totalGlobalMem;
  info_.compute_units = prop.multiProcessorCount;
  // Double data rate: two transfers per memory clock, bus_bits / 8 bytes each.
  info_.peak_gbs = 2.0 * memory_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  info_.details = nlohmann::json{
      {"compute_capability", fmt::format("{}.{}", prop.major, prop.minor)},
      {"pci_bus_id", bus_id},
      {"copy_engines", prop.asyncEngineCount},
      {"l2_bytes", prop.l2CacheSize},
      {"concurrent_managed_access", prop.concurrentManagedAccess != 0},
      {"can_map_host_memory", prop.canMapHostMemory != 0},
      {"ecc_enabled", prop.ECCEnabled != 0},
      {"sm_clock_mhz", sm_clock_khz / 1000},
      {"memory_clock_mhz", memory_clock_khz / 1000},
      {"memory_bus_bits",
       bus_bits}}.dump();
}

namespace {

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    int count = 0;
    if (cudaError_t error = cudaGetDeviceCount(&count); error != cudaSuccess) {
      cudaGetLastError();
      status_ = fmt::format("no CUDA device ({})", describe(error));
      return;
    }
    if (count == 0) {
      status_ = "no CUDA device (the driver reports none)";
      return;
    }
    // A device the driver refuses to describe is left out and named, rather than hiding the others.
    for (int i = 0; i < count; ++i) {
      try {
        devices_.push_back(std::make_shared<CudaDevice>(i));
      } catch (const Error& e) {
        status_ += fmt::format("{}cuda:{} left out: {}", status_.empty() ? "" : "; ", i, e.what());
      }
    }
  }
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
  std::string status() const override { return status_; }

 private:
  std::vector<std::shared_ptr<Device>> devices_;
  std::string status_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda::CudaBackend>(); }

}  // namespace conveyor::backend
