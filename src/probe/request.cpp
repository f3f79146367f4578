// From the options a user gives `conveyor probe` (or conveyor.probe() in Python) to the probe's
// plan, and from its results to the rows and the calibration file: one implementation for both.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "conveyor/calibration.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/units.hpp"

namespace conveyor {
namespace {

using nlohmann::json;

std::vector<std::shared_ptr<Device>> select_devices(const std::string& text) {
  if (text == "all") return all_devices();
  std::vector<std::shared_ptr<Device>> chosen;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string id =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (id.empty()) throw UsageError(fmt::format("--device: empty name in '{}'", text));
    auto device = find_device(id);
    if (std::find(chosen.begin(), chosen.end(), device) == chosen.end()) chosen.push_back(device);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return chosen;
}

/// Fails early when the calibration cannot be written, rather than after the sweeps.
void check_writable(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::path probe_file = path;
  probe_file += ".tmp";
  std::ofstream out(probe_file, std::ios::app);
  if (ec || !out)
    throw Error(fmt::format("cannot write calibration {}: {}", path.string(),
                            ec ? ec.message() : std::strerror(errno)));
  out.close();
  std::filesystem::remove(probe_file, ec);
}

void add_staging_rows(json& rows, const StagingCalibration& s) {
  for (const auto& p : s.plain)
    rows.push_back({{"kind", "plain_stream"},
                    {"device", "cpu"},
                    {"variant", s.variant},
                    {"threads", p.threads},
                    {"kernel", p.kernel},
                    {"elements", s.elements},
                    {"best_gbs", p.best_gbs}});
  rows.push_back({{"kind", "near_read"}, {"device", "cpu"}, {"best_gbs", s.near_read_gbs}});
  for (const auto& m : s.movers)
    rows.push_back({{"kind", "mover"},
                    {"device", "cpu"},
                    {"mover", m.mover},
                    {"copy_gbs", m.copy_gbs},
                    {"block_overhead_us", m.block_overhead_us},
                    {"uses_cpu", m.uses_cpu}});
}

json app_row(const AppPoint& a) {
  json row = {{"kind", "app"},
              {"app", a.app},
              {"device", a.device},
              {"size", a.size},
              {"size_unit", a.app == "matmul" ? "n" : "bytes"},
              {"time_s", a.time_s},
              {"median_s", a.median_s},
              {"speedup_vs_cpu", a.speedup_vs_cpu ? json(*a.speedup_vs_cpu) : json(nullptr)},
              {"valid", a.valid}};
  if (a.rel_error) row["rel_error"] = *a.rel_error;
  if (a.mismatches) row["mismatches"] = *a.mismatches;
  return row;
}

bool all_valid(const ProbeResults& results) {
  return std::all_of(results.apps.begin(), results.apps.end(),
                     [](const AppPoint& a) { return a.valid; });
}

}  // namespace

ProbePlan plan_probe(const ProbeRequest& request) {
  // The CLI's own option check says the same; this one is for callers without it (Python).
  if (request.repeats < 1 || request.repeats > 1000)
    throw UsageError(fmt::format("--repeats: {} is not in 1..1000", request.repeats));
  ProbePlan plan;
  plan.options.repeats = request.repeats;
  plan.options.quick = request.quick;
  plan.options.max_bytes = parse_bytes(request.max_size, "--max-size");
  plan.options.apps = request.apps;
  plan.options.staging = request.staging;
  plan.devices = select_devices(request.device);
  if (!request.no_calibration) {
    plan.calibration = request.calibration.empty() ? default_calibration_path()
                                                   : std::filesystem::path(request.calibration);
    check_writable(plan.calibration);
  }
  return plan;
}

json probe_options_record(const ProbeRequest& request, const ProbePlan& plan) {
  json device_ids = json::array();
  for (const auto& d : plan.devices) device_ids.push_back(d->info().id);
  return {{"devices", request.device},           {"device_ids", device_ids},
          {"repeats", request.repeats},          {"quick", request.quick},
          {"max_bytes", plan.options.max_bytes}, {"apps", request.apps},
          {"staging", request.staging}};
}

json probe_rows(const ProbeResults& results) {
  json rows = json::array();
  for (const auto& b : results.bandwidth)
    rows.push_back({{"kind", "bandwidth"},
                    {"device", b.device},
                    {"model", to_string(b.model)},
                    {"direction", b.direction},
                    {"bytes", b.bytes},
                    {"best_gbs", b.best_gbs},
                    {"median_gbs", b.median_gbs},
                    {"best_s", b.best_s}});
  for (const auto& d : results.dispatch)
    rows.push_back({{"kind", "dispatch"},
                    {"device", d.device},
                    {"enqueue_us", d.enqueue_us},
                    {"roundtrip_us", d.roundtrip_us}});
  for (const auto& a : results.attach)
    rows.push_back({{"kind", "attach"},
                    {"device", a.device},
                    {"model", to_string(a.model)},
                    {"bytes", a.bytes},
                    {"time_us", a.time_us}});
  for (const auto& m : results.models)
    rows.push_back({{"kind", "model"},
                    {"device", m.device},
                    {"model", to_string(m.model)},
                    {"td_us", m.td_us},
                    {"tm_us", m.tm_us},
                    {"bw_gbs", m.bw_gbs},
                    {"fit_intercept_us", m.fit.intercept_us},
                    {"fit_slope_us_per_byte", m.fit.slope_us_per_byte},
                    {"rms_residual_us", m.fit.rms_residual_us}});
  for (const auto& a : results.apps) rows.push_back(app_row(a));
  for (const auto& c : results.crossovers)
    rows.push_back({{"kind", "crossover"},
                    {"app", c.app},
                    {"device", c.device},
                    {"size", c.size ? json(*c.size) : json(nullptr)}});
  if (results.staging) add_staging_rows(rows, *results.staging);
  return rows;
}

void check_probe_results(const ProbeResults& results) {
  if (!all_valid(results))
    throw ValidationError(
        "a device's application result does not match the CPU's (see the notes); no calibration "
        "written");
}

std::filesystem::path save_probe_calibration(const ProbePlan& plan, const ProbeResults& results) {
  if (plan.calibration.empty() || !all_valid(results)) return {};
  Calibration cal = make_calibration(results);
  // Keep what an earlier run on this machine measured for devices not probed this time.
  try {
    Calibration old = Calibration::load(plan.calibration, cal.machine);
    for (auto& e : old.entries)
      if (!cal.find(e.device, e.model)) cal.entries.push_back(std::move(e));
    if (!cal.staging) cal.staging = std::move(old.staging);
  } catch (const UsageError&) {
    // No usable earlier file: this run's entries are the whole calibration.
  }
  cal.save(plan.calibration);
  return plan.calibration;
}

}  // namespace conveyor
