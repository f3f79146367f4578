#include <nlohmann/json.hpp>

#include "conveyor/topology.hpp"
#include "cpu_device.hpp"
#include "sgemm.hpp"

namespace conveyor::backend {
namespace cpu {

CpuDevice::CpuDevice() {
  const Topology& t = host_topology();
  info_.id = "cpu";
  info_.kind = DeviceKind::Cpu;
  info_.name = t.cpu_model;
  info_.platform = "host (" + t.source + ")";
  info_.memory_bytes = t.memory_bytes;
  info_.compute_units = static_cast<int>(t.cores.size());
  info_.details = nlohmann::json{
      {"packages", t.packages},
      {"cores", t.cores.size()},
      {"llc_level", t.llc_level},
      {"llc_bytes", t.llc_bytes},
      {"llc_total_bytes", t.llc_total_bytes},
      {"numa_nodes", t.numa_nodes.size()},
      {"probe_matmul",
       sgemm_name()}}.dump();
}

namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend() : devices_{std::make_shared<CpuDevice>()} {}
  DeviceKind kind() const override { return DeviceKind::Cpu; }
  const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
  std::string status() const override { return {}; }

 private:
  std::vector<std::shared_ptr<Device>> devices_;
};

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace conveyor::backend
