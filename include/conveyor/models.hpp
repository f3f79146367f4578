#pragma once
/// The performance models that the model schedulers learn on a machine (measured task times per
/// codelet, device and buffer footprint, the fitted size curves, the host <-> device link models),
/// read back for display: what `conveyor models` prints. A measurement header, so its records are
/// JSON (docs/architecture.md, "JSON in the public headers").
#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor {

/// perfmodels.json next to the probe's calibration (default_calibration_path()): the file the model
/// schedulers read and write unless RuntimeOptions::perf_models names another.
std::filesystem::path default_models_path();

/// The models in `file` as {"date": ..., "rows": [...], "links": {...}}. One row per (codelet,
/// device, footprint): codelet, device, footprint (8 hex digits), bytes, median_s, mean_s,
/// deviation_s, samples, outliers, fit (the fitted time(bytes) as text, "-" when none), fit_a,
/// fit_b and fit_c_s when fitted, predictions and median_error_percent (how well the models
/// predicted the tasks placed with a prediction). Links by device id: latency_us, bw_gbs, source.
/// A missing file has no rows; a corrupt file, another schema or another machine's models throw
/// UsageError with one line saying why.
nlohmann::json describe_models(const std::filesystem::path& file);

/// One kind of worker that a Runtime made with some options would have.
struct WorkerClass {
  std::string device;  ///< what the models are keyed by: "cpu", "cuda:0", "h200:0"
  DeviceKind kind = DeviceKind::Cpu;
  int count = 1;  ///< workers of this kind: the CPU cores, or 1 for a device
  /// An OpenCL CPU device (PoCL): its work competes with the CPU workers'.
  bool shares_host_cores = false;
};

/// What the models predict for the workers a Runtime made with `options` would have, asked before
/// it starts (the tiled apps' tile size, apps/common/block_size.hpp). On a simulated platform its
/// own task models answer; otherwise the models file (RuntimeOptions::perf_models) the model
/// schedulers learnt on this machine, read once here. Nothing is started or measured.
///
///   WorkerModels m(options);
///   for (const auto& w : m.workers())
///     double s = m.seconds("gemm", w.device, {{bytes, bytes, bytes}}, 2.0 * b * b * b);
class WorkerModels {
 public:
  /// Throws UsageError for a platform file that cannot be read or a device that does not exist;
  /// a models file that cannot be used counts as empty (as the runtime does).
  explicit WorkerModels(const RuntimeOptions& options);
  ~WorkerModels();
  WorkerModels(const WorkerModels&) = delete;
  WorkerModels& operator=(const WorkerModels&) = delete;

  /// The CPUs first (absent when there are none), then each device in the runtime's order.
  const std::vector<WorkerClass>& workers() const { return workers_; }
  /// Predicted seconds of one task of `codelet` on `device` with buffers of these sizes (in access
  /// order) and `flops` (0: unknown): the platform's model, else the measured history, fitted size
  /// curve or time per flop; < 0 when nothing was measured or modelled (a fresh machine).
  double seconds(std::string_view codelet, std::string_view device,
                 std::span<const std::size_t> buffer_bytes, double flops) const;
  /// A nominal rate in flop/s by kind (the model scheduler's prior before any measurement).
  static double nominal_flops(DeviceKind kind);

 private:
  struct State;
  std::vector<WorkerClass> workers_;
  std::unique_ptr<State> state_;
};

}  // namespace conveyor
