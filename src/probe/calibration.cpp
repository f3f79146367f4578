// The calibration file: written by `conveyor probe`, read by the scheduler and the staged-stream
// strategy switch. Errors say which file, what is wrong and how to regenerate it.
#include "conveyor/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <optional>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "conveyor/records.hpp"
#include "core/json_number.hpp"
#include "core/utc_time.hpp"

namespace conveyor {
namespace {

using nlohmann::json;

constexpr const char* kRegenerate = "run 'conveyor probe' to measure this machine again";

MemoryModel parse_model(const std::string& name, const std::string& origin) {
  for (MemoryModel m : {MemoryModel::Host, MemoryModel::Pageable, MemoryModel::Pinned,
                        MemoryModel::Mapped, MemoryModel::Svm})
    if (to_string(m) == name) return m;
  throw UsageError(fmt::format("calibration {} names an unknown memory model '{}'", origin, name));
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

/// Why `found` is not `expected`, or empty when it is.
std::string staleness(const MachineFingerprint& found, const MachineFingerprint& expected) {
  if (found.hostname != expected.hostname)
    return fmt::format("it was measured on host '{}', this is '{}'", found.hostname,
                       expected.hostname);
  if (found.cpu_model != expected.cpu_model)
    return fmt::format("it was measured on CPU '{}', this machine has '{}'", found.cpu_model,
                       expected.cpu_model);
  if (found.devices != expected.devices)
    return fmt::format("its devices ({}) differ from this machine's ({})", list(found.devices),
                       list(expected.devices));
  return {};
}

json staging_to_json(const StagingCalibration& s) {
  json plain = json::array();
  for (const auto& p : s.plain)
    plain.push_back({{"threads", p.threads}, {"kernel", p.kernel}, {"best_gbs", p.best_gbs}});
  json movers = json::array();
  for (const auto& m : s.movers)
    movers.push_back({{"mover", m.mover},
                      {"copy_gbs", m.copy_gbs},
                      {"block_overhead_us", m.block_overhead_us},
                      {"uses_cpu", m.uses_cpu},
                      {"copy_threads", m.copy_threads}});
  return {{"variant", s.variant}, {"binding", s.binding}, {"elements", s.elements},
          {"cpus", s.cpus},       {"plain", plain},       {"near_read_gbs", s.near_read_gbs},
          {"movers", movers}};
}

/// The integer member `key` of `item` (`fallback` when absent and given); a float or a value out
/// of T's range is refused (core/json_number.hpp). A missing member throws json's out_of_range,
/// reported by from_json like any other malformed member.
template <typename T>
T whole(const json& item, const char* key, const std::string& origin,
        std::optional<T> fallback = std::nullopt) {
  if (fallback && !item.contains(key)) return *fallback;
  if (auto v = core::whole_number<T>(item.at(key))) return *v;
  throw UsageError(
      fmt::format("calibration {} is malformed ('{}' is {}, not a whole number from "
                  "{} to {}); {}",
                  origin, key, item.at(key).dump(), std::numeric_limits<T>::min(),
                  std::numeric_limits<T>::max(), kRegenerate));
}

StagingCalibration staging_from_json(const json& doc, const std::string& origin) {
  StagingCalibration s;
  s.variant = doc.at("variant").get<std::string>();
  s.binding = doc.at("binding").get<std::string>();
  s.elements = whole<std::uint64_t>(doc, "elements", origin);
  s.cpus = whole<int>(doc, "cpus", origin);
  for (const json& p : doc.at("plain"))
    s.plain.push_back({whole<int>(p, "threads", origin), p.at("kernel").get<std::string>(),
                       p.at("best_gbs").get<double>()});
  s.near_read_gbs = doc.at("near_read_gbs").get<double>();
  for (const json& m : doc.at("movers"))
    s.movers.push_back({m.at("mover").get<std::string>(), m.at("copy_gbs").get<double>(),
                        m.at("block_overhead_us").get<double>(), m.at("uses_cpu").get<bool>(),
                        whole<int>(m, "copy_threads", origin, 1)});
  return s;
}

}  // namespace

const MoverCalibration* StagingCalibration::find_mover(std::string_view name) const {
  for (const auto& m : movers)
    if (m.mover == name) return &m;
  return nullptr;
}

MachineFingerprint current_machine() {
  json record = machine_record();
  MachineFingerprint m;
  m.hostname = record.value("hostname", "");
  m.cpu_model = record.value("cpu_model", "");
  for (const auto& d : record["devices"])
    m.devices.push_back(d.value("id", "") + ": " + d.value("name", ""));
  return m;
}

double CalibrationEntry::predict_task_s(std::uint64_t bytes) const {
  double transfer = bw_gbs > 0 ? 2.0 * static_cast<double>(bytes) / (bw_gbs * 1e9) : 0.0;
  return (td_us + tm_us) * 1e-6 + transfer;
}

const CalibrationEntry* Calibration::find(std::string_view device, MemoryModel model) const {
  for (const auto& e : entries)
    if (e.device == device && e.model == model) return &e;
  return nullptr;
}

json Calibration::to_json() const {
  json doc = {{"conveyor_calibration", schema},
              {"date", date},
              {"machine",
               {{"hostname", machine.hostname},
                {"cpu_model", machine.cpu_model},
                {"devices", machine.devices}}},
              {"units",
               "times in us (apps: s), bandwidths in GB/s = 1e9 B/s, sizes in bytes "
               "(matmul: n)"}};
  json list = json::array();
  for (const auto& e : entries) {
    json links = json::object();
    for (const auto& [direction, link] : e.links)
      links[direction] = {
          {"bw_gbs", link.bw_gbs}, {"latency_us", link.latency_us}, {"bytes", link.bytes}};
    json apps = json::object();
    for (const auto& [name, app] : e.apps) {
      json times = json::array();
      for (const auto& [size, t] : app.time_s) times.push_back({{"size", size}, {"time_s", t}});
      apps[name] = {{"times", times},
                    {"crossover", app.crossover ? json(*app.crossover) : json(nullptr)}};
    }
    list.push_back({{"device", e.device},
                    {"device_name", e.device_name},
                    {"model", to_string(e.model)},
                    {"td_us", e.td_us},
                    {"tm_us", e.tm_us},
                    {"bw_gbs", e.bw_gbs},
                    {"enqueue_us", e.enqueue_us},
                    {"rms_residual_us", e.rms_residual_us},
                    {"links", links},
                    {"apps", apps}});
  }
  doc["entries"] = list;
  if (staging) doc["staging"] = staging_to_json(*staging);
  return doc;
}

Calibration Calibration::from_json(const json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("conveyor_calibration"))
    throw UsageError(
        fmt::format("{} is not a Conveyor calibration file (no 'conveyor_calibration' "
                    "member); {}",
                    origin, kRegenerate));
  Calibration cal;
  try {
    cal.schema = whole<int>(doc, "conveyor_calibration", origin);
    // Older schemas that only lack members are read as they are (schema 1: no `staging`).
    if (cal.schema < kOldestCalibrationSchema || cal.schema > kCalibrationSchema)
      throw UsageError(fmt::format(
          "calibration {} is stale: it has schema {}, this conveyor reads schemas {} to {}; {}",
          origin, cal.schema, kOldestCalibrationSchema, kCalibrationSchema, kRegenerate));
    cal.date = doc.at("date").get<std::string>();
    const json& machine = doc.at("machine");
    cal.machine.hostname = machine.at("hostname").get<std::string>();
    cal.machine.cpu_model = machine.at("cpu_model").get<std::string>();
    cal.machine.devices = machine.at("devices").get<std::vector<std::string>>();
    for (const json& item : doc.at("entries")) {
      CalibrationEntry e;
      e.device = item.at("device").get<std::string>();
      e.device_name = item.value("device_name", "");
      e.model = parse_model(item.at("model").get<std::string>(), origin);
      e.td_us = item.at("td_us").get<double>();
      e.tm_us = item.at("tm_us").get<double>();
      e.bw_gbs = item.at("bw_gbs").get<double>();
      e.enqueue_us = item.value("enqueue_us", 0.0);
      e.rms_residual_us = item.value("rms_residual_us", 0.0);
      // Named, not iterated as temporaries: items() of a temporary would dangle.
      const json links = item.value("links", json::object());
      const json apps = item.value("apps", json::object());
      for (const auto& [direction, link] : links.items())
        e.links[direction] = {link.at("bw_gbs").get<double>(), link.at("latency_us").get<double>(),
                              whole<std::uint64_t>(link, "bytes", origin, 0)};
      for (const auto& [name, app] : apps.items()) {
        AppCalibration a;
        for (const json& t : app.at("times"))
          a.time_s.emplace_back(whole<std::uint64_t>(t, "size", origin),
                                t.at("time_s").get<double>());
        if (app.contains("crossover") && !app["crossover"].is_null())
          a.crossover = whole<std::uint64_t>(app, "crossover", origin);
        e.apps[name] = std::move(a);
      }
      cal.entries.push_back(std::move(e));
    }
    if (doc.contains("staging") && !doc["staging"].is_null())
      cal.staging = staging_from_json(doc["staging"], origin);
  } catch (const json::exception& e) {
    // nlohmann's messages name the member and the type found, e.g. "key 'td_us' not found".
    std::string what = e.what();
    auto bracket = what.find("] ");
    throw UsageError(fmt::format("calibration {} is malformed ({}); {}", origin,
                                 bracket == std::string::npos ? what : what.substr(bracket + 2),
                                 kRegenerate));
  }
  return cal;
}

void Calibration::save(const std::filesystem::path& path) const {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    throw Error(fmt::format("cannot write calibration {}: cannot create {}: {}", path.string(),
                            path.parent_path().string(), ec.message()));
  write_file_whole(path, to_json().dump(1) + "\n", "calibration");
}

Calibration Calibration::load(const std::filesystem::path& path) {
  return load(path, current_machine());
}

Calibration Calibration::load(const std::filesystem::path& path,
                              const MachineFingerprint& expected) {
  const std::string origin = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw UsageError(fmt::format("no calibration at {}: {}", origin, kRegenerate));
  std::ifstream in(path);
  if (!in)
    throw UsageError(fmt::format("cannot read calibration {}: {}", origin, std::strerror(errno)));
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded())
    throw UsageError(fmt::format("calibration {} is not valid JSON (corrupt or truncated); {}",
                                 origin, kRegenerate));
  Calibration cal = from_json(doc, origin);
  std::string why = staleness(cal.machine, expected);
  if (!why.empty())
    throw UsageError(fmt::format("calibration {} is stale: {}; {}", origin, why, kRegenerate));
  return cal;
}

Calibration make_calibration(const ProbeResults& results) {
  Calibration cal;
  cal.date = core::utc_now_iso8601();
  cal.machine = current_machine();
  std::map<std::string, std::string> names;
  for (const auto& d : all_devices()) names[d->info().id] = d->info().name;
  for (const auto& m : results.models) {
    CalibrationEntry e;
    e.device = m.device;
    e.device_name = names.count(m.device) ? names[m.device] : "";
    e.model = m.model;
    e.td_us = m.td_us;
    e.tm_us = m.tm_us;
    e.bw_gbs = m.bw_gbs;
    e.rms_residual_us = m.fit.rms_residual_us;
    for (const auto& d : results.dispatch)
      if (d.device == m.device) e.enqueue_us = d.enqueue_us;
    std::map<std::string, std::uint64_t> smallest;  // per direction: latency is its best time
    for (const auto& b : results.bandwidth) {
      if (b.device != m.device || b.model != m.model || b.direction == "task") continue;
      auto [it, fresh] = e.links.try_emplace(b.direction);
      LinkCalibration& link = it->second;
      if (fresh || b.bytes >= link.bytes) {
        link.bw_gbs = b.best_gbs;
        link.bytes = b.bytes;
      }
      if (fresh || b.bytes < smallest[b.direction]) {
        smallest[b.direction] = b.bytes;
        link.latency_us = b.best_s * 1e6;
      }
    }
    // Application timings belong to the device, whatever the model; stored with each of its
    // entries.
    for (const auto& a : results.apps)
      if (a.device == m.device) e.apps[a.app].time_s.emplace_back(a.size, a.time_s);
    for (const auto& c : results.crossovers)
      if (c.device == m.device) e.apps[c.app].crossover = c.size;
    cal.entries.push_back(std::move(e));
  }
  cal.staging = results.staging;
  return cal;
}

std::filesystem::path default_calibration_path() {
  // The XDG base directory rule: XDG_CACHE_HOME when set to an absolute path, else ~/.cache.
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::filesystem::path(xdg) / "conveyor" / "calibration.json";
  const char* home = std::getenv("HOME");
  if (home && home[0])
    return std::filesystem::path(home) / ".cache" / "conveyor" / "calibration.json";
  throw UsageError(
      "neither XDG_CACHE_HOME nor HOME is set: give the calibration file with --calibration FILE");
}

}  // namespace conveyor
