#pragma once
/// Offload-cost probes (seed 004): bandwidth per link and memory model, dispatch latency Td, memory
/// attach latency Tm, and the model T = Td + Tm + bytes(read + write) / BW.
///
/// Two levels: ProbeTarget is what one device answers (each backend implements it); run_probe()
/// drives the sweeps over a set of devices and returns the rows `conveyor probe` prints.
///
///   conveyor::ProbeOptions options;
///   options.quick = true;
///   auto results = conveyor::run_probe({conveyor::find_device("cpu")}, options);
///   for (const auto& m : results.models) std::cout << m.device << " Td " << m.td_us << " us\n";
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
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

class Device;

/// What run_probe() measures. Sizes are bytes; times in the results are as their keys say.
struct ProbeOptions {
  int repeats = 5;  ///< timed repetitions per point (best and median kept); cheap points use more
  bool quick = false;  ///< short sweeps (4 KiB..1 MiB, matmul n <= 128, md5 <= 256 KiB)
  std::uint64_t max_bytes = 256ull
                            << 20;  ///< largest transfer and task size (also bounded per device)
  bool apps = true;                 ///< run the application pair (matmul, md5)
  /// With the CPU, and not quick: measure the staged pipeline's inputs (StagingCalibration).
  bool staging = true;
  /// Called with one line per phase ("opencl:0: transfers"), e.g. to show progress; may be empty.
  std::function<void(std::string_view)> progress;
};

/// One transfer (direction "h2d", "d2h", "d2d") or memory task ("task": bytes read + written)
/// point of the bandwidth-versus-size sweep. GB/s are SI (1e9 B/s).
struct BandwidthPoint {
  std::string device;
  MemoryModel model = MemoryModel::Host;
  std::string direction;
  std::uint64_t bytes = 0;
  double best_s = 0;
  double best_gbs = 0;
  double median_gbs = 0;
};

/// Empty-kernel costs of one device: host enqueue (mean of a burst) and launch + wait.
struct DispatchPoint {
  std::string device;
  double enqueue_us = 0;
  double roundtrip_us = 0;
};

/// One memory task over a small buffer, the points behind Tm (best time).
struct AttachPoint {
  std::string device;
  MemoryModel model = MemoryModel::Host;
  std::uint64_t bytes = 0;
  double time_us = 0;
};

/// Line fit of attach time against bytes, and Tm = intercept - Td.
struct OffloadFit {
  double tm_us = 0;
  double intercept_us = 0;
  double slope_us_per_byte = 0;
  double rms_residual_us = 0;
};

/// Fits time_us = intercept + slope * bytes and subtracts `td_us` from the intercept. Needs two
/// distinct sizes (throws conveyor::Error).
OffloadFit fit_offload(std::span<const double> bytes, std::span<const double> time_us,
                       double td_us);

/// One column of the seed's table 3: T = Td + Tm + bytes(read + write) / BW.
struct ModelRow {
  std::string device;
  MemoryModel model = MemoryModel::Host;
  double td_us = 0;
  double tm_us = 0;
  double bw_gbs = 0;
  OffloadFit fit;
};

/// One run of an application ("matmul": size is n; "md5": size is bytes of 64-byte messages).
struct AppPoint {
  std::string app;
  std::string device;
  std::uint64_t size = 0;
  double time_s = 0;  ///< best
  double median_s = 0;
  std::optional<double> speedup_vs_cpu;     ///< CPU time / this time at the same size
  std::optional<double> rel_error;          ///< matmul on a device: ||C - C_cpu||_F / ||C_cpu||_F
  std::optional<std::uint64_t> mismatches;  ///< md5 on a device: digests differing from the CPU's
  bool valid = true;                        ///< the device result matched the CPU's
};

/// The size from which offloading `app` to `device` pays; nullopt when it never does in range.
struct Crossover {
  std::string app;
  std::string device;
  std::optional<std::uint64_t> size;
};

/// The smallest measured size from which the device is faster than the CPU at that size and at
/// every larger size measured; nullopt when it is not faster at the largest. The spans are aligned
/// and sorted by size (throws UsageError when their lengths differ).
std::optional<std::uint64_t> crossover_size(std::span<const std::uint64_t> sizes,
                                            std::span<const double> cpu_s,
                                            std::span<const double> device_s);

/// The plain STREAM kernel (tuned: non-temporal stores) on arrays far larger than the caches, run
/// by `threads` threads: the rate the cores reach without a mover.
struct PlainStreamRate {
  int threads = 1;
  std::string kernel;   ///< "copy", "scale", "add", "triad", "dot"
  double best_gbs = 0;  ///< bytes read + written / best time
};

/// One host mover copying blocks from far memory into a cache-sized ring (the pipeline's copy-only
/// phase, one lane): time of a block of b bytes = block_overhead_us + b / copy_gbs.
struct MoverCalibration {
  std::string mover;  ///< "thread", "dsa"
  double copy_gbs = 0;
  double block_overhead_us = 0;
  /// The copies take a CPU (a copy thread) rather than an engine of their own (DSA): without a
  /// spare CPU they take time from the computing threads.
  bool uses_cpu = true;
  int copy_threads = 1;  ///< copy threads it was measured with (uses_cpu only)
};

/// What `conveyor stream --pipeline --strategy auto` predicts from instead of timing itself.
struct StagingCalibration {
  std::string variant = "tuned";    ///< kernels measured: non-temporal stores
  std::string binding = "scatter";  ///< thread placement measured
  std::uint64_t elements = 0;       ///< per array
  int cpus = 0;                     ///< hardware threads of the machine (for spare-CPU checks)
  std::vector<PlainStreamRate> plain;
  double near_read_gbs = 0;  ///< one thread reading blocks that are already in the cache
  std::vector<MoverCalibration> movers;

  const MoverCalibration* find_mover(std::string_view name) const;
};

struct ProbeResults {
  std::vector<BandwidthPoint> bandwidth;
  std::vector<DispatchPoint> dispatch;
  std::vector<AttachPoint> attach;
  std::vector<ModelRow> models;
  std::vector<AppPoint> apps;
  std::vector<Crossover> crossovers;
  /// The staged pipeline's inputs; measured with the CPU, not with --quick (caches would hold
  /// the arrays).
  std::optional<StagingCalibration> staging;
  std::vector<std::string> notes;  ///< caveats that belong with the figures
};

/// Probes `devices` in order. Application runs on devices other than the CPU are checked against
/// the CPU's results (which are measured even when the CPU is not in `devices`). Throws UsageError
/// for bad options and conveyor::Error when a device fails.
ProbeResults run_probe(const std::vector<std::shared_ptr<Device>>& devices,
                       const ProbeOptions& options);

/// A probe as `conveyor probe` and `conveyor.probe()` take it: the options as the user writes them
/// (sizes and device lists as text), before they are checked. Messages name the CLI's options.
struct ProbeRequest {
  std::string device = "all";  ///< cpu, opencl:N, cuda:N, a comma-separated list, or all
  int repeats = 5;
  bool quick = false;
  std::string max_size = "256MiB";
  bool apps = true;
  bool staging = true;
  std::string calibration;      ///< the file to write; empty: default_calibration_path()
  bool no_calibration = false;  ///< write no calibration file
};

/// A checked request: the devices in order, the options of run_probe, and where the calibration
/// goes (empty: nowhere).
struct ProbePlan {
  std::vector<std::shared_ptr<Device>> devices;
  ProbeOptions options;
  std::filesystem::path calibration;
};

/// Parses and checks a request, and checks that the calibration file can be written (before the
/// sweeps, not after). Throws UsageError naming the bad option, conveyor::Error when the
/// calibration cannot be written.
ProbePlan plan_probe(const ProbeRequest& request);

/// The "options" record of a probe result document (`--json-out`).
nlohmann::json probe_options_record(const ProbeRequest& request, const ProbePlan& plan);

/// The result rows of a probe document, each with a "kind": bandwidth, dispatch, attach, model,
/// app, crossover, then plain_stream, near_read and mover when the staging inputs were measured.
nlohmann::json probe_rows(const ProbeResults& results);

/// Throws ValidationError when an application result on a device did not match the CPU's (the
/// notes say which; no calibration is written then).
void check_probe_results(const ProbeResults& results);

/// Writes the calibration of these results to plan.calibration, keeping what an earlier file of
/// this machine holds for devices (and staging) not measured this time. Returns the path written,
/// or an empty path when the plan writes none or a device's result was wrong.
std::filesystem::path save_probe_calibration(const ProbePlan& plan, const ProbeResults& results);

}  // namespace conveyor
