#pragma once
// A simulated platform (docs/simulation.md): a host with CPU cores, devices with a memory size and
// a compute model, and links between them, read from a JSON platform file. The platform owns the
// virtual clock on which the real runtime then runs, and the links as resources: a transfer takes
// latency + bytes / bandwidth on every link of its route and holds each of them meanwhile, so
// transfers that share a link (a PCIe switch's uplink) serialize in the order they were issued.
// Units: GB/s = 1e9 B/s, GFLOP/s = 1e9 flop/s, latencies in microseconds in the file.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device/codelet_impl.hpp"
#include "device/driver.hpp"
#include "device/virtual_clock.hpp"

namespace conveyor::device::simulated {

class SimulatedDevice;

/// A codelet's rate as a function of its task's size: GFLOP/s at given flops per task, linear in
/// log(flops) between the points and flat beyond them (small kernels run below peak). One point
/// is a constant rate.
struct Rate {
  std::vector<std::pair<double, double>> points;  ///< (flops per task, GFLOP/s), flops increasing
  double gflops(double flops) const;
};

/// How long a codelet takes on one processor (a host core or a device).
struct ComputeModel {
  std::map<std::string, Rate> gflops;  ///< by codelet name, with the codelet's flops function
  double gbs = 0;                      ///< fallback: bytes of all buffers / gbs (0: none)
  double launch_us = 0;                ///< added to every task (kernel launch, dispatch)

  /// Seconds for `codelet` on buffers of `ctx`; throws UsageError naming `where` when the platform
  /// has no model for it.
  double seconds(const device::CodeletImpl& codelet, const TaskContext& ctx,
                 const std::string& where) const;
  /// The same from the task's shape (`flops` < 0: the codelet has no cost function); < 0 when
  /// the model does not cover the codelet.
  double seconds(const std::string& codelet, double flops, double bytes) const;
};

struct DeviceSpec {
  std::string id;  ///< "v100:0"
  std::uint64_t memory_bytes = 0;
  ComputeModel compute;
  double alloc_us = 0;  ///< a real device allocation (cudaMalloc); cached blocks are free
  /// From the end of the lane's work to the runtime learning of it (the host thread waiting on
  /// the completion waking, the driver completing the task): what releases a successor.
  double complete_us = 0;
  /// Copies in on a stream of their own (the CUDA driver's): the next tasks' tiles cross the link
  /// while the current kernel runs, and a kernel waits for the copies in enqueued before it.
  bool copy_in_stream = false;
  /// A real free (an eviction's: cached blocks are not freed) waits for the device's enqueued
  /// work to finish, as cudaFree synchronises the device: the freeing thread owes that time.
  bool free_syncs = false;
  /// peer-direct: how many times a kernel reads each byte of a peer's replica over the link (a
  /// tiled kernel re-reads its operands; 1 = one streaming pass).
  double remote_read_factor = 1;
};

struct LinkSpec {
  std::string a, b;  ///< endpoints: "host", a device id, or a switch
  double gbs_ab = 0, gbs_ba = 0;
  double latency_us = 0;
};

struct PlatformSpec {
  std::string path;  ///< the file it came from (for messages)
  std::string name, description;
  int host_cores = 1;
  ComputeModel host;
  std::vector<DeviceSpec> devices;
  std::vector<std::string> switches;
  std::vector<LinkSpec> links;
};

/// Reads and checks a platform file: unknown keys, wrong types, negative or missing values, unknown
/// endpoints and devices the host cannot reach throw UsageError naming the file and the key.
PlatformSpec read_platform(const std::string& path);
/// The same from JSON text (`origin` names it in messages).
PlatformSpec parse_platform(const std::string& text, const std::string& origin);

/// One direction of a link: a resource held by one transfer at a time.
struct Channel {
  double gbs = 0;
  double latency_s = 0;
  double free_s = 0;  ///< virtual time at which the last reserved transfer ends
};

/// The running platform: clock, channels and routes. Thread-safe (drivers and the threads that
/// copy to the host reserve channels concurrently).
class Platform final : public ModelledCosts {
 public:
  /// Uses the first `devices` devices of the spec (0: all; RuntimeOptions::kPlatformHostOnly:
  /// none). `clock`: the virtual clock to run on (a simulated cluster's ranks share one, whose
  /// owner sets its CPU model); null: a clock of its own, with this platform's host as the CPU
  /// model.
  Platform(PlatformSpec spec, int devices, bool run_kernels,
           std::shared_ptr<VirtualClock> clock = nullptr);

  const PlatformSpec& spec() const { return spec_; }
  int devices() const { return devices_; }
  VirtualClock& clock() { return *clock_; }
  bool run_kernels() const { return run_kernels_; }

  /// Node index of "host" (0) and of device d (1 + d).
  static int host_node() { return 0; }
  static int device_node(int d) { return 1 + d; }
  bool has_route(int from, int to) const;
  /// The driver of device d (set by open_platform).
  void attach(int d, SimulatedDevice* device) { attached_.at(d) = device; }
  SimulatedDevice* device(int d) const { return attached_.at(d); }
  /// Reserves the route from -> to for `bytes` starting no earlier than `ready_s`; returns
  /// [start, end) in virtual seconds. `factor` multiplies the bytes' time (peer-direct re-reads,
  /// drawn as "peer read" on the link tracks).
  std::pair<double, double> transfer(int from, int to, std::size_t bytes, double ready_s,
                                     double factor = 1);
  /// Draws every transfer from now on on the trace's link tracks (idempotent).
  void attach_trace(Trace* trace);

  // ModelledCosts, for the model schedulers' predictions (nothing reserved). A copy's price
  // includes its route's current backlog, so that a scheduler sees a shared link (a PCIe switch's
  // uplink, the socket link) that is busy and prefers the devices that already hold the data.
  double task_seconds(const std::string& codelet, const std::string& device, double flops,
                      std::uint64_t bytes) const override;
  double copy_seconds(const std::string& from, const std::string& to,
                      std::uint64_t bytes) const override;

 private:
  PlatformSpec spec_;
  int devices_;
  bool run_kernels_;
  mutable std::mutex mutex_;
  std::vector<Channel> channels_;                           ///< 2 per link: a -> b, b -> a
  std::map<std::pair<int, int>, std::vector<int>> routes_;  ///< channel indices, by node pair
  std::vector<SimulatedDevice*> attached_;
  std::map<std::string, int, std::less<>> node_of_;  ///< "host" and the used devices' ids
  Trace* trace_ = nullptr;                           ///< under mutex_
  std::shared_ptr<VirtualClock> clock_;
};

}  // namespace conveyor::device::simulated
