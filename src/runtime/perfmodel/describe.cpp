// conveyor/models.hpp: the models file read back as records, for display.
#include <fmt/format.h>

#include "conveyor/calibration.hpp"
#include "conveyor/models.hpp"
#include "runtime/perfmodel/models.hpp"

namespace conveyor {

nlohmann::json describe_models(const std::filesystem::path& file) {
  runtime::perfmodel::PerfModels models =
      runtime::perfmodel::PerfModels::load(file, current_machine());
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : models.rows()) {
    const auto* fit = models.fit(row.codelet, row.device);
    auto [error, predictions] = models.prediction_error(row.codelet, row.device);
    nlohmann::json r = {{"codelet", row.codelet},
                        {"device", row.device},
                        {"footprint", fmt::format("{:08x}", row.footprint)},
                        {"bytes", row.bytes},
                        {"median_s", row.history->median()},
                        {"mean_s", row.history->mean()},
                        {"deviation_s", row.history->deviation()},
                        {"samples", row.history->count()},
                        {"outliers", row.history->outliers()},
                        {"fit", fit ? fit->describe() : "-"},
                        {"predictions", predictions},
                        {"median_error_percent", 100 * error}};
    if (fit && fit->valid()) {
      r["fit_a"] = fit->a;
      r["fit_b"] = fit->b;
      r["fit_c_s"] = fit->c;
    }
    rows.push_back(std::move(r));
  }
  nlohmann::json links = nlohmann::json::object();
  for (const auto& [id, l] : models.links())
    links[id] = {{"latency_us", l.latency_us}, {"bw_gbs", l.bw_gbs}, {"source", l.source}};
  return {{"date", models.date}, {"rows", std::move(rows)}, {"links", std::move(links)}};
}

}  // namespace conveyor
