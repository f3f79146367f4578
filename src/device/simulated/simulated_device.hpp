#pragma once
// A device of a simulated platform (docs/simulation.md). It has the CUDA kind, so codelets with a
// CUDA implementation are placed on it, and the DeviceDriver lane contract, so the real runtime
// (scheduler, coherence, allocation cache, eviction) drives it unchanged; but every lane operation
// only reserves modelled time: copies on the platform's links, kernels on the device's compute
// model. Nothing is copied and no kernel runs unless the platform runs kernels (correctness mode:
// device memory is real host memory, copies are memcpy at their modelled end, and a kernel runs the
// codelet's CPU implementation then). Without it, allocations are addresses no one dereferences.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "device/driver.hpp"
#include "device/simulated/platform.hpp"

namespace conveyor::device::simulated {

class SimulatedDevice final : public DeviceDriver {
 public:
  SimulatedDevice(std::shared_ptr<Platform> platform, int index, DriverConfig config);
  ~SimulatedDevice() override;

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::string& id() const override { return spec_.id; }
  std::uint64_t memory_bytes() const override { return spec_.memory_bytes; }
  void* allocate(std::size_t bytes) override;
  void deallocate(void* block) noexcept override;

  void enqueue_h2d(void* dst, const HostRegion& src) override;
  void enqueue_d2h(const HostRegion& dst, const void* src) override;
  void enqueue_write_back(const HostRegion& dst, const void* src, DoneCallback done,
                          void* user) override;
  bool can_peer_from(const DeviceDriver& other) const override;
  bool can_read_peer(const DeviceDriver& other) const override { return can_peer_from(other); }
  void enqueue_peer(void* dst, const DeviceDriver& src_driver, const void* src,
                    std::size_t bytes) override;
  void launch(const device::CodeletImpl& codelet, TaskContext& ctx) override;
  void notify(DoneCallback done, void* user) override;
  void drain_trace(std::vector<TimedOp>& out) override;
  VirtualClock* virtual_clock() override { return &platform_->clock(); }
  const ModelledCosts* modelled_costs() const override { return platform_.get(); }
  double completion_seconds() const override { return spec_.complete_us * 1e-6; }
  void attach_trace(Trace* trace) override { platform_->attach_trace(trace); }
  void copy_to_host(const HostRegion& dst, const void* src) override;

  /// Whether `block` is memory of this device (a peer-direct read finds the replica's owner).
  bool owns(const void* block) const;
  /// Bytes that kernels read from peers' memory (peer-direct), for reports.
  std::uint64_t remote_read_bytes() const { return remote_read_bytes_; }

 private:
  /// When the next lane operation may start.
  double lane_ready() const;
  void record(TimedOp::Kind kind, const std::string& name, TaskId task, double start, double end);

  std::shared_ptr<Platform> platform_;
  int index_;
  const DeviceSpec& spec_;
  DriverConfig config_;
  double lane_free_s_ = 0;      // driver thread only
  double copy_in_free_s_ = 0;   // copy_in_stream: when its stream is free (driver thread only)
  double copies_in_end_s_ = 0;  // copy_in_stream: the end of the copies in enqueued so far
  /// The end of all work enqueued on the device so far (lane, copies in, write-backs): what a
  /// free waits for (free_syncs); read by whichever thread frees.
  std::atomic<double> drained_s_{0};
  void busy_until(double end_s);
  std::vector<TimedOp> timed_;  // driver thread only
  std::uint64_t remote_read_bytes_ = 0;
  std::string kernel_error_;  // correctness mode: a failed kernel, for the next notify
  std::mutex error_mutex_;

  mutable std::mutex blocks_mutex_;
  std::unordered_map<const void*, std::size_t> blocks_;  // live allocations
  std::uintptr_t next_fake_ = 0;                         // bump pointer of fake addresses
  std::vector<void*> retired_;  // correctness mode: freed at the end (a queued copy may read them)
};

/// The drivers of a simulated platform, as the runtime opens them.
struct OpenedPlatform {
  std::shared_ptr<Platform> platform;  ///< its clock runs the runtime, with or without devices
  std::vector<std::unique_ptr<DeviceDriver>> drivers;
  int host_cores = 1;
};
/// Reads `path` and builds its first `devices` devices (0: all), on `clock` when given (a
/// simulated cluster's shared clock), else on a clock of the platform's own.
OpenedPlatform open_platform(const std::string& path, int devices, bool run_kernels,
                             const DriverConfig& config,
                             std::shared_ptr<VirtualClock> clock = nullptr);

}  // namespace conveyor::device::simulated
