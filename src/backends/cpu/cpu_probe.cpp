#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/topology.hpp"
#include "core/seconds_of.hpp"
#include "cpu_device.hpp"
#include "cpu_probe_target.hpp"

namespace conveyor::backend::cpu {
namespace {

// Below this a copy stays on the calling core: waking the team costs more than it saves.
constexpr std::size_t kParallelCopyBytes = 256 * 1024;
constexpr std::size_t kPageBytes = 4096;

int all_cores() {
  int cores = static_cast<int>(host_topology().cores.size());
  return cores > 0 ? cores : 1;
}

}  // namespace

void TeamBuffer::Free::operator()(std::byte* p) const { std::free(p); }

void TeamBuffer::ensure(core::ThreadTeam& team, std::size_t bytes) {
  if (bytes <= size_) return;
  std::size_t rounded = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kPageBytes, rounded));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  size_ = rounded;
  team.run([&](int member) {
    auto [begin, end] = share(rounded / kPageBytes, member, team.size());
    std::memset(p + begin * kPageBytes, 0, (end - begin) * kPageBytes);
  });
}

CpuProbeTarget::CpuProbeTarget()
    : team_(all_cores(), core::ThreadTeam::placement(all_cores(), ThreadBinding::Scatter)) {}

void CpuProbeTarget::check_model(MemoryModel model) const {
  if (model != MemoryModel::Host)
    throw UsageError(
        fmt::format("memory model '{}' is not available on cpu (only 'host')", to_string(model)));
}

std::vector<Direction> CpuProbeTarget::directions(MemoryModel model) const {
  check_model(model);
  return {Direction::DeviceToDevice};
}

double CpuProbeTarget::transfer(Direction direction, MemoryModel model, std::size_t bytes) {
  check_model(model);
  if (direction != Direction::DeviceToDevice)
    throw UsageError(
        fmt::format("cpu has no {} transfer: host memory is its own (only d2d, a memcpy)",
                    to_string(direction)));
  if (bytes == 0) throw UsageError("transfer on cpu: size must be positive");
  source_.ensure(team_, bytes);
  target_.ensure(team_, bytes);
  std::byte* from = source_.data();
  std::byte* to = target_.data();
  if (bytes < kParallelCopyBytes) return core::seconds_of([&] { std::memcpy(to, from, bytes); });
  return core::seconds_of([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(bytes, member, team_.size());
      std::memcpy(to + begin, from + begin, end - begin);
    });
  });
}

double CpuProbeTarget::dispatch_enqueue(int count) {
  if (count <= 0) throw UsageError(fmt::format("dispatch count must be positive, not {}", count));
  return core::seconds_of([&] {
           for (int i = 0; i < count; ++i) team_.run([](int) {});
         }) /
         count;
}

double CpuProbeTarget::dispatch_roundtrip() {
  return core::seconds_of([&] { team_.run([](int) {}); });
}

double CpuProbeTarget::memory_task(MemoryModel model, std::size_t bytes) {
  check_model(model);
  if (bytes == 0) throw UsageError("memory task on cpu: size must be positive");
  std::size_t count = bytes < sizeof(float) ? 1 : bytes / sizeof(float);
  source_.ensure(team_, count * sizeof(float));
  float* x = reinterpret_cast<float*>(source_.data());
  // The same update as the device kernels; scale and offset keep values bounded over repeats.
  return core::seconds_of([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(count, member, team_.size());
      for (std::size_t i = begin; i < end; ++i) x[i] = x[i] * 0.5f + 1.0f;
    });
  });
}

std::unique_ptr<ProbeTarget> CpuDevice::make_probe_target() {
  return std::make_unique<CpuProbeTarget>();
}

}  // namespace conveyor::backend::cpu
