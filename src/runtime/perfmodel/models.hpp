#pragma once
// The performance models of one machine: execution-time histories keyed by (codelet, device,
// footprint), a size regression per (codelet, device) for footprints never seen, a time per flop
// learnt from codelets that have a cost function, the prediction errors seen so far, and the
// transfer model of each device's link. Saved next to the probe's calibration
// (perfmodels.json), versioned and tied to the machine like the calibration is. Not thread-safe:
// the runtime uses it under its lock.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "conveyor/calibration.hpp"
#include "conveyor/models.hpp"  // default_models_path()
#include "runtime/perfmodel/history.hpp"

namespace conveyor::runtime::perfmodel {

/// Bumped when the file layout changes; a file of another schema is not used.
inline constexpr int kModelsSchema = 1;

/// Where a prediction came from, best first. Modelled: a simulated platform's own model
/// (PerfModels::set_oracle), exact by construction for the machine that the simulation runs.
enum class Source { Modelled, History, Regression, Flops, None };
std::string_view to_string(Source s);

struct Prediction {
  double seconds = 0;
  Source source = Source::None;
  bool known() const { return source != Source::None; }
};

/// What a task looks like to the models.
struct TaskShape {
  std::uint32_t footprint = 0;
  std::uint64_t bytes = 0;  ///< all its buffers
  double flops = 0;         ///< from the codelet's cost function; 0 when it has none
};

/// One history with its key, for listing.
struct HistoryRow {
  std::string codelet, device;
  std::uint32_t footprint = 0;
  std::uint64_t bytes = 0;
  const History* history = nullptr;
};

/// Latency + bytes / bandwidth of one device's link to the host.
struct LinkModel {
  double latency_us = 0;
  double bw_gbs = 0;   ///< 1 GB/s = 1e9 B/s
  std::string source;  ///< "probe" (the calibration), "measured" (at first use), "assumed"
  double seconds(std::uint64_t bytes) const {
    return bytes == 0 ? 0.0 : latency_us * 1e-6 + static_cast<double>(bytes) / (bw_gbs * 1e9);
  }
};

/// Costs known without measuring (a simulated platform): asked before any history.
struct Oracle {
  /// Seconds of the codelet on the device for a task of this shape; < 0 when not modelled.
  std::function<double(const std::string& codelet, const std::string& device,
                       const TaskShape& shape)>
      task;
  /// Seconds of one copy of `bytes` from `from` to `to` ("host" or a device id) issued now (its
  /// route's backlog included); < 0 when there is no route.
  std::function<double(const std::string& from, const std::string& to, std::uint64_t bytes)> copy;
  explicit operator bool() const { return task || copy; }
};

class PerfModels {
 public:
  /// Samples of a (codelet, device) below which the scheduler calibrates (places tasks there to
  /// measure them).
  static constexpr std::uint64_t kMinSamples = 3;

  void record(const std::string& codelet, const std::string& device, const TaskShape& shape,
              double seconds);
  /// Remembers |predicted - measured| / measured of a task that was placed with a prediction.
  void record_error(const std::string& codelet, const std::string& device, double predicted,
                    double measured);
  /// History of this footprint (median, once it has kMinSamples); else the regression over the
  /// footprints seen; else the time per flop of the codelet on this device; else None.
  Prediction predict(const std::string& codelet, const std::string& device,
                     const TaskShape& shape) const;
  /// Predictions come from `oracle` first (Source::Modelled) wherever it has a model. Not saved.
  void set_oracle(Oracle oracle) { oracle_ = std::move(oracle); }
  const Oracle& oracle() const { return oracle_; }
  /// Samples of the codelet on the device, all footprints.
  std::uint64_t samples(const std::string& codelet, const std::string& device) const;
  std::uint64_t samples(const std::string& codelet, const std::string& device,
                        std::uint32_t footprint) const;
  /// Median relative prediction error, and how many predictions it is over.
  std::pair<double, std::size_t> prediction_error(const std::string& codelet,
                                                  const std::string& device) const;
  const PowerFit* fit(const std::string& codelet, const std::string& device) const;

  std::vector<HistoryRow> rows() const;
  /// (codelet, device) pairs with at least one sample.
  std::vector<std::pair<std::string, std::string>> pairs() const;

  std::map<std::string, LinkModel>& links() { return links_; }
  const std::map<std::string, LinkModel>& links() const { return links_; }

  nlohmann::json to_json() const;
  /// Throws UsageError naming `origin` when the document is not a models file of this schema.
  static PerfModels from_json(const nlohmann::json& doc, const std::string& origin);
  /// Writes the whole file under a temporary name, then renames it (a reader never sees half).
  void save(const std::filesystem::path& path) const;
  /// Reads a models file measured on `expected`; throws UsageError with one line saying why it
  /// cannot be used (corrupt, another schema, another machine). A missing file is empty models.
  static PerfModels load(const std::filesystem::path& path, const MachineFingerprint& expected);

  MachineFingerprint machine;  ///< the machine the models were measured on
  std::string date;            ///< last saved, ISO 8601 UTC

 private:
  struct PerDevice {  // one codelet on one device
    std::map<std::uint32_t, std::pair<std::uint64_t, History>> by_footprint;  // bytes, history
    History seconds_per_flop;
    std::vector<double> errors;  // recent relative prediction errors (ring)
    std::size_t next_error = 0;
    PowerFit fit;
    bool fit_dirty = false;
  };
  using Key = std::pair<std::string, std::string>;  // codelet, device
  void refit(PerDevice& d) const;

  mutable std::map<Key, PerDevice> models_;  // fits are refreshed lazily by predict()
  std::map<std::string, LinkModel> links_;   // by device id
  Oracle oracle_;
};

}  // namespace conveyor::runtime::perfmodel
