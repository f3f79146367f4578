#pragma once
/// The performance models that the model schedulers learn on a machine (measured task times per
/// codelet, device and buffer footprint, the fitted size curves, the host <-> device link models),
/// read back for display: what `conveyor models` prints. A measurement header, so its records are
/// JSON (docs/architecture.md, "JSON in the public headers").
#include <filesystem>
#include <nlohmann/json.hpp>

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

}  // namespace conveyor
