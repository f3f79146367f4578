#include "runtime/perfmodel/models.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>

#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "core/json_number.hpp"
#include "core/utc_time.hpp"

namespace conveyor::runtime::perfmodel {

using nlohmann::json;

namespace {

constexpr std::size_t kErrorRing = 256;
constexpr const char* kRemeasure = "the runtime measures the models again and replaces it";

json history_json(const History& h) {
  return {{"samples", h.count()},         {"accepted", h.accepted()}, {"mean_s", h.mean()},
          {"deviation_s", h.deviation()}, {"median_s", h.median()},   {"recent_s", h.ring()}};
}

/// A count member (core/json_number.hpp: a float or a negative number is refused, not cast).
std::uint64_t count(const json& j, const char* key) {
  if (auto v = core::whole_number<std::uint64_t>(j.at(key))) return *v;
  throw UsageError(
      fmt::format("'{}' is {}, not a whole number of at least 0", key, j.at(key).dump()));
}

History history_from(const json& j) {
  return History::restore(j.at("recent_s").get<std::vector<double>>(), count(j, "samples"),
                          count(j, "accepted"), j.at("mean_s").get<double>(),
                          j.at("deviation_s").get<double>());
}

}  // namespace

std::string_view to_string(Source s) {
  switch (s) {
    case Source::Modelled:
      return "modelled";
    case Source::History:
      return "history";
    case Source::Regression:
      return "regression";
    case Source::Flops:
      return "flops";
    case Source::None:
      break;
  }
  return "none";
}

void PerfModels::record(const std::string& codelet, const std::string& device,
                        const TaskShape& shape, double seconds) {
  if (!(seconds >= 0)) return;
  PerDevice& d = models_[{codelet, device}];
  auto& [bytes, history] = d.by_footprint[shape.footprint];
  bytes = shape.bytes;
  history.add(seconds);
  if (shape.flops > 0) d.seconds_per_flop.add(seconds / shape.flops);
  d.fit_dirty = true;
}

void PerfModels::record_error(const std::string& codelet, const std::string& device,
                              double predicted, double measured) {
  if (!(measured > 0) || !(predicted > 0)) return;
  PerDevice& d = models_[{codelet, device}];
  double e = std::fabs(predicted - measured) / measured;
  if (d.errors.size() < kErrorRing) {
    d.errors.push_back(e);
  } else {
    d.errors[d.next_error] = e;
    d.next_error = (d.next_error + 1) % kErrorRing;
  }
}

void PerfModels::refit(PerDevice& d) const {
  if (!d.fit_dirty) return;
  std::vector<std::pair<double, double>> points;
  for (const auto& [fp, entry] : d.by_footprint)
    points.emplace_back(static_cast<double>(entry.first), entry.second.median());
  d.fit = fit_power(points);
  d.fit_dirty = false;
}

Prediction PerfModels::predict(const std::string& codelet, const std::string& device,
                               const TaskShape& shape) const {
  if (oracle_.task)
    if (double t = oracle_.task(codelet, device, shape); t >= 0) return {t, Source::Modelled};
  auto it = models_.find({codelet, device});
  if (it == models_.end()) return {};
  PerDevice& d = it->second;
  auto fp = d.by_footprint.find(shape.footprint);
  const History* own = fp == d.by_footprint.end() ? nullptr : &fp->second.second;
  if (own && own->count() >= kMinSamples) return {own->median(), Source::History};
  refit(d);
  auto bytes = static_cast<double>(shape.bytes);
  if (d.fit.points >= 2) return {d.fit.predict(bytes), Source::Regression};
  if (shape.flops > 0 && d.seconds_per_flop.count() > 0)
    return {shape.flops * d.seconds_per_flop.median(), Source::Flops};
  if (own && own->count() > 0) return {own->median(), Source::History};
  if (d.fit.valid()) return {d.fit.predict(bytes), Source::Regression};
  return {};
}

std::uint64_t PerfModels::samples(const std::string& codelet, const std::string& device) const {
  auto it = models_.find({codelet, device});
  if (it == models_.end()) return 0;
  std::uint64_t n = 0;
  for (const auto& [fp, entry] : it->second.by_footprint) n += entry.second.count();
  return n;
}

std::uint64_t PerfModels::samples(const std::string& codelet, const std::string& device,
                                  std::uint32_t footprint) const {
  auto it = models_.find({codelet, device});
  if (it == models_.end()) return 0;
  auto fp = it->second.by_footprint.find(footprint);
  return fp == it->second.by_footprint.end() ? 0 : fp->second.second.count();
}

std::pair<double, std::size_t> PerfModels::prediction_error(const std::string& codelet,
                                                            const std::string& device) const {
  auto it = models_.find({codelet, device});
  if (it == models_.end() || it->second.errors.empty()) return {0.0, 0};
  return {median(it->second.errors), it->second.errors.size()};
}

const PowerFit* PerfModels::fit(const std::string& codelet, const std::string& device) const {
  auto it = models_.find({codelet, device});
  if (it == models_.end()) return nullptr;
  refit(it->second);
  return &it->second.fit;
}

std::vector<HistoryRow> PerfModels::rows() const {
  std::vector<HistoryRow> out;
  for (const auto& [key, d] : models_)
    for (const auto& [fp, entry] : d.by_footprint)
      out.push_back({key.first, key.second, fp, entry.first, &entry.second});
  return out;
}

std::vector<std::pair<std::string, std::string>> PerfModels::pairs() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, d] : models_)
    if (!d.by_footprint.empty()) out.push_back(key);
  return out;
}

json PerfModels::to_json() const {
  json models = json::array();
  for (auto& [key, d] : models_) {
    refit(d);
    json footprints = json::array();
    for (const auto& [fp, entry] : d.by_footprint) {
      json f = history_json(entry.second);
      f["footprint"] = fmt::format("{:08x}", fp);
      f["bytes"] = entry.first;
      footprints.push_back(std::move(f));
    }
    json m = {{"codelet", key.first},
              {"device", key.second},
              {"footprints", footprints},
              {"seconds_per_flop", history_json(d.seconds_per_flop)},
              {"errors", d.errors}};
    if (d.fit.valid())
      m["fit"] = {{"a", d.fit.a}, {"b", d.fit.b}, {"c_s", d.fit.c}, {"points", d.fit.points}};
    models.push_back(std::move(m));
  }
  json links = json::object();
  for (const auto& [id, l] : links_)
    links[id] = {{"latency_us", l.latency_us}, {"bw_gbs", l.bw_gbs}, {"source", l.source}};
  return {{"conveyor_perfmodels", kModelsSchema},
          {"date", date},
          {"machine",
           {{"hostname", machine.hostname},
            {"cpu_model", machine.cpu_model},
            {"devices", machine.devices}}},
          {"models", models},
          {"links", links}};
}

PerfModels PerfModels::from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("conveyor_perfmodels"))
    throw UsageError(fmt::format("performance models {} are not a Conveyor models file; {}", origin,
                                 kRemeasure));
  int schema = core::whole_number<int>(doc.at("conveyor_perfmodels")).value_or(-1);
  if (schema != kModelsSchema)
    throw UsageError(fmt::format("performance models {} have schema {}, this conveyor reads {}; {}",
                                 origin, schema, kModelsSchema, kRemeasure));
  PerfModels m;
  auto malformed = [&](std::string_view why) {
    return UsageError(
        fmt::format("performance models {} are malformed ({}); {}", origin, why, kRemeasure));
  };
  try {
    m.date = doc.value("date", "");
    const json& machine = doc.at("machine");
    m.machine.hostname = machine.at("hostname").get<std::string>();
    m.machine.cpu_model = machine.at("cpu_model").get<std::string>();
    m.machine.devices = machine.at("devices").get<std::vector<std::string>>();
    for (const json& j : doc.at("models")) {
      PerDevice d;
      for (const json& f : j.at("footprints")) {
        auto fp = static_cast<std::uint32_t>(
            std::stoul(f.at("footprint").get<std::string>(), nullptr, 16));
        d.by_footprint[fp] = {count(f, "bytes"), history_from(f)};
      }
      d.seconds_per_flop = history_from(j.at("seconds_per_flop"));
      d.errors = j.at("errors").get<std::vector<double>>();
      if (d.errors.size() > kErrorRing) d.errors.resize(kErrorRing);
      d.next_error = d.errors.size() % kErrorRing;
      d.fit_dirty = true;
      m.models_[{j.at("codelet").get<std::string>(), j.at("device").get<std::string>()}] =
          std::move(d);
    }
    for (const auto& [id, l] : doc.at("links").items())
      m.links_[id] = {l.at("latency_us").get<double>(), l.at("bw_gbs").get<double>(),
                      l.at("source").get<std::string>()};
  } catch (const json::exception& e) {
    throw malformed(e.what());
  } catch (const UsageError& e) {  // count()
    throw malformed(e.what());
  } catch (const std::logic_error&) {  // stoul
    throw malformed("bad footprint");
  }
  return m;
}

void PerfModels::save(const std::filesystem::path& path) const {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    throw Error(fmt::format("cannot write performance models {}: {}", path.string(), ec.message()));
  PerfModels copy = *this;
  copy.date = core::utc_now_iso8601();
  // Two runtimes ending at once each write a whole file; the last rename wins.
  write_file_whole(path, copy.to_json().dump(1) + "\n", "performance models");
}

PerfModels PerfModels::load(const std::filesystem::path& path, const MachineFingerprint& expected) {
  const std::string origin = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    PerfModels empty;
    empty.machine = expected;
    return empty;
  }
  std::ifstream in(path);
  if (!in)
    throw UsageError(
        fmt::format("cannot read performance models {}: {}", origin, std::strerror(errno)));
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded())
    throw UsageError(fmt::format(
        "performance models {} are not valid JSON (corrupt or truncated); {}", origin, kRemeasure));
  PerfModels m = from_json(doc, origin);
  if (m.machine.hostname != expected.hostname || m.machine.cpu_model != expected.cpu_model ||
      m.machine.devices != expected.devices)
    throw UsageError(
        fmt::format("performance models {} were measured on another machine ('{}', {} devices); {}",
                    origin, m.machine.hostname, m.machine.devices.size(), kRemeasure));
  return m;
}

}  // namespace conveyor::runtime::perfmodel

namespace conveyor {

std::filesystem::path default_models_path() {
  return default_calibration_path().parent_path() / "perfmodels.json";
}

}  // namespace conveyor
