#pragma once
/// The measured machine, saved by `conveyor probe` and read by the scheduler and the staged-stream
/// strategy switch: per device and memory model the seed-004 model T = Td + Tm + bytes(r+w) / BW,
/// the bandwidth and latency of each link direction, the application timings, and (schema 2) what
/// the staged pipeline's model needs: the plain STREAM kernels per thread count and each host
/// mover's copy rate. A calibration belongs to one machine: load() refuses a file measured
/// elsewhere, or by an unknown schema.
///
///   auto cal = conveyor::Calibration::load(conveyor::default_calibration_path());
///   if (auto* e = cal.find("opencl:0", conveyor::MemoryModel::Pinned))
///     double t_us = e->td_us + e->tm_us + 2.0 * bytes / (e->bw_gbs * 1e3);
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/probe.hpp"

namespace conveyor {

/// Bumped whenever the file layout changes. Schema 2 added `staging`; schema 1 files are still read
/// (without it). Other schemas are reported stale.
inline constexpr int kCalibrationSchema = 2;
inline constexpr int kOldestCalibrationSchema = 1;

/// What identifies the machine a calibration was measured on.
struct MachineFingerprint {
  std::string hostname;
  std::string cpu_model;
  std::vector<std::string>
      devices;  ///< "id: name" of every device present, e.g. "opencl:0: cpu-..."
  bool operator==(const MachineFingerprint&) const = default;
};

/// This machine's fingerprint (every device found, not only the probed ones).
MachineFingerprint current_machine();

/// One link direction of a device under a memory model.
struct LinkCalibration {
  double bw_gbs = 0;        ///< best bandwidth at the largest size measured (1 GB/s = 1e9 B/s)
  double latency_us = 0;    ///< best time of the smallest transfer measured
  std::uint64_t bytes = 0;  ///< the largest size measured
};

/// Application timings of one device: (size, best seconds) pairs, and the crossover size.
struct AppCalibration {
  std::vector<std::pair<std::uint64_t, double>> time_s;
  std::optional<std::uint64_t> crossover;  ///< from this size the device beats the CPU
};

/// One column of table 3, with its links.
struct CalibrationEntry {
  std::string device;  ///< "cpu", "opencl:0", "cuda:0"
  std::string device_name;
  MemoryModel model = MemoryModel::Host;
  double td_us = 0;
  double tm_us = 0;
  double bw_gbs = 0;
  double enqueue_us = 0;
  double rms_residual_us = 0;
  std::map<std::string, LinkCalibration> links;  ///< by direction: "h2d", "d2h", "d2d"
  std::map<std::string, AppCalibration> apps;    ///< by application: "matmul", "md5"

  /// Predicted seconds of one task touching `bytes` (read and written): Td + Tm + 2 bytes / BW.
  double predict_task_s(std::uint64_t bytes) const;
};

class Calibration {
 public:
  int schema = kCalibrationSchema;
  std::string date;  ///< ISO 8601 UTC
  MachineFingerprint machine;
  std::vector<CalibrationEntry> entries;
  /// Absent in schema 1 files, and when the CPU was not probed (or only with --quick).
  std::optional<StagingCalibration> staging;

  /// The entry for `device` under `model`, or nullptr.
  const CalibrationEntry* find(std::string_view device, MemoryModel model) const;

  nlohmann::json to_json() const;
  /// Parses a document; throws UsageError naming `origin` and what is wrong.
  static Calibration from_json(const nlohmann::json& doc, const std::string& origin);

  /// Writes the file (parent folders created; written whole then renamed into place). Throws
  /// conveyor::Error when it cannot.
  void save(const std::filesystem::path& path) const;
  /// Reads and checks a file measured on `expected` (default: this machine). Throws UsageError
  /// saying why when it is missing, not a calibration, or stale (other host, CPU, devices, or
  /// schema), and how to regenerate it.
  static Calibration load(const std::filesystem::path& path);
  static Calibration load(const std::filesystem::path& path, const MachineFingerprint& expected);
};

/// Builds the calibration of this machine from probe results.
Calibration make_calibration(const ProbeResults& results);

/// $XDG_CACHE_HOME/conveyor/calibration.json, else ~/.cache/conveyor/calibration.json. Throws
/// UsageError when neither XDG_CACHE_HOME nor HOME is set.
std::filesystem::path default_calibration_path();

}  // namespace conveyor
