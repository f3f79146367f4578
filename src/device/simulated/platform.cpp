#include "device/simulated/platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "device/simulated/json_reader.hpp"
#include "device/trace.hpp"

namespace conveyor::device::simulated {
namespace {

using nlohmann::json;

// Bounds of a platform: the runtime starts a thread per core and per device, and routes are
// found by a Dijkstra per device over all nodes (cubic in the devices).
constexpr int kMaxCores = 4096;
constexpr int kMaxDevices = 256;

// A codelet's rate: a number (GFLOP/s), or [[flops per task, GFLOP/s], ...] with the flops
// increasing (docs/simulation.md).
Rate read_rate(const Reader& g, const std::string& name) {
  Rate rate;
  const json& v = g.self().at(name);
  if (!v.is_array()) {
    rate.points.push_back({0, g.number(name.c_str(), 0, true, true)});
    return rate;
  }
  const std::string bad =
      "must be a number or a list of [flops per task, GFLOP/s] pairs, the "
      "flops increasing, both positive";
  if (v.empty()) g.fail(bad, name);
  for (const auto& p : v) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) g.fail(bad, name);
    double flops = p[0].get<double>(), gflops = p[1].get<double>();
    if (!(flops > 0) || !(gflops > 0) || !std::isfinite(flops) || !std::isfinite(gflops) ||
        (!rate.points.empty() && flops <= rate.points.back().first))
      g.fail(bad, name);
    rate.points.push_back({flops, gflops});
  }
  return rate;
}

ComputeModel read_compute(const Reader& r) {
  ComputeModel m;
  if (r.has("gflops")) {
    Reader g = r.child("gflops");
    for (const auto& [name, v] : g.self().items()) m.gflops[name] = read_rate(g, name);
  }
  m.gbs = r.number("gbs", 0);
  m.launch_us = r.number("launch_us", 0);
  return m;
}

}  // namespace

double Rate::gflops(double flops) const {
  if (flops <= points.front().first) return points.front().second;
  if (flops >= points.back().first) return points.back().second;
  std::size_t i = 1;
  while (points[i].first < flops) ++i;
  const auto [f0, g0] = points[i - 1];
  const auto [f1, g1] = points[i];
  return g0 + (g1 - g0) * std::log(flops / f0) / std::log(f1 / f0);
}

double ComputeModel::seconds(const device::CodeletImpl& codelet, const TaskContext& ctx,
                             const std::string& where) const {
  double s = launch_us * 1e-6;
  auto it = gflops.find(codelet.name);
  if (it != gflops.end()) {
    if (!codelet.flops)
      throw UsageError(fmt::format(
          "{}: the platform gives GFLOP/s for codelet '{}', which has no flops function", where,
          codelet.name));
    const double flops = codelet.flops(ctx);
    return s + flops / (it->second.gflops(flops) * 1e9);
  }
  if (gbs > 0) {
    double bytes = 0;
    for (std::size_t i = 0; i < ctx.size(); ++i) {
      const Buffer& b = ctx.buffer(i);
      bytes += static_cast<double>(b.rows * b.cols * b.elem_size);
    }
    return s + bytes / (gbs * 1e9);
  }
  throw UsageError(fmt::format(
      "{}: the platform has no model for codelet '{}' (give it in gflops, or a fallback gbs)",
      where, codelet.name));
}

double ComputeModel::seconds(const std::string& codelet, double flops, double bytes) const {
  auto it = gflops.find(codelet);
  if (it != gflops.end())
    return flops < 0 ? -1 : launch_us * 1e-6 + flops / (it->second.gflops(flops) * 1e9);
  if (gbs > 0) return launch_us * 1e-6 + bytes / (gbs * 1e9);
  return -1;
}

PlatformSpec parse_platform(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    throw UsageError(fmt::format("platform file {}: not JSON: {}", origin, e.what()));
  }
  Reader top(doc, origin, "");
  top.allow({"name", "description", "host", "devices", "switches", "links"});
  PlatformSpec p;
  p.path = origin;
  p.name = top.text("name", true);
  p.description = top.text("description");

  Reader host = top.child("host");
  host.allow({"cores", "gflops", "gbs", "launch_us"});
  p.host_cores = host.whole("cores", 0, true, kMaxCores);
  p.host = read_compute(host);

  // A node of CPUs only has no devices (or an empty list).
  const json& devices = top.has("devices") ? top.at("devices") : json::array();
  if (!devices.is_array()) top.fail("must be an array", "devices");
  std::set<std::string> nodes{"host"};
  for (std::size_t i = 0; i < devices.size(); ++i) {
    Reader d(devices[i], origin, fmt::format("devices[{}]", i));
    d.allow({"id", "count", "memory_gb", "gflops", "gbs", "launch_us", "alloc_us", "complete_us",
             "copy_in_stream", "free_syncs", "remote_read_factor"});
    std::string id = d.text("id", true);
    if (id.empty() || id.find(':') != std::string::npos)
      d.fail("must be a non-empty name without ':' (devices are named id:0, id:1, ...)", "id");
    const int count = d.whole("count", 1, false, kMaxDevices);
    DeviceSpec spec;
    // At most 1e9 GB (1e18 B): the product must fit the uint64_t it is cast to.
    const double memory_gb = d.number("memory_gb", 0, true, true);
    if (memory_gb > 1e9)
      d.fail(fmt::format("must be at most 1e9 (got {})", memory_gb), "memory_gb");
    spec.memory_bytes = static_cast<std::uint64_t>(memory_gb * 1e9);
    spec.compute = read_compute(d);
    spec.alloc_us = d.number("alloc_us", 0);
    spec.complete_us = d.number("complete_us", 0);
    for (auto [key, flag] : {std::pair{"copy_in_stream", &spec.copy_in_stream},
                             std::pair{"free_syncs", &spec.free_syncs}})
      if (d.has(key)) {
        if (!d.at(key).is_boolean()) d.fail("must be true or false", key);
        *flag = d.at(key).get<bool>();
      }
    spec.remote_read_factor = d.number("remote_read_factor", 1, false, true);
    if (p.devices.size() + static_cast<std::size_t>(count) > kMaxDevices)
      d.fail(fmt::format("makes more than {} devices in all", kMaxDevices), "count");
    for (int k = 0; k < count; ++k) {
      spec.id = fmt::format("{}:{}", id, k);
      if (!nodes.insert(spec.id).second) d.fail(fmt::format("repeats device {}", spec.id), "id");
      p.devices.push_back(spec);
    }
  }
  if (top.has("switches")) {
    const json& s = top.at("switches");
    if (!s.is_array()) top.fail("must be an array of names", "switches");
    for (const auto& name : s) {
      if (!name.is_string()) top.fail("must be an array of names", "switches");
      if (!nodes.insert(name.get<std::string>()).second)
        top.fail(fmt::format("repeats the name '{}'", name.get<std::string>()), "switches");
      p.switches.push_back(name.get<std::string>());
    }
  }
  const json& links = top.at("links");
  if (!links.is_array()) top.fail("must be an array", "links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    Reader l(links[i], origin, fmt::format("links[{}]", i));
    l.allow({"between", "gbs", "latency_us"});
    const json& between = l.at("between");
    if (!between.is_array() || between.size() != 2 || !between[0].is_string() ||
        !between[1].is_string())
      l.fail("must be two endpoint names", "between");
    LinkSpec link;
    link.a = between[0].get<std::string>();
    link.b = between[1].get<std::string>();
    for (const auto& end : {link.a, link.b})
      if (!nodes.count(end))
        l.fail(fmt::format("names '{}', which is neither host, a device (id:k) nor a switch", end),
               "between");
    if (link.a == link.b) l.fail("joins an endpoint to itself", "between");
    const json& gbs = l.at("gbs");
    if (gbs.is_array()) {  // one bandwidth per direction: a -> b, b -> a
      if (gbs.size() != 2 || !gbs[0].is_number() || !gbs[1].is_number())
        l.fail("must be a number or two numbers (a -> b, b -> a)", "gbs");
      link.gbs_ab = gbs[0].get<double>();
      link.gbs_ba = gbs[1].get<double>();
    } else {
      link.gbs_ab = link.gbs_ba = l.number("gbs", 0, true);
    }
    if (link.gbs_ab <= 0 || link.gbs_ba <= 0)
      l.fail(fmt::format("must be positive (got {}, {})", link.gbs_ab, link.gbs_ba), "gbs");
    link.latency_us = l.number("latency_us", 0);
    p.links.push_back(link);
  }
  return p;
}

PlatformSpec read_platform(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("platform file {}: cannot be read", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_platform(text.str(), path);
}

// ---- the running platform -----------------------------------------------------------------------

Platform::Platform(PlatformSpec spec, int devices, bool run_kernels,
                   std::shared_ptr<VirtualClock> clock)
    : spec_(std::move(spec)),
      devices_(devices == 0 ? static_cast<int>(spec_.devices.size())
               : devices == RuntimeOptions::kPlatformHostOnly ? 0
                                                              : devices),
      run_kernels_(run_kernels),
      clock_(clock ? clock : std::make_shared<VirtualClock>()) {
  if (devices_ < 0 || devices_ > static_cast<int>(spec_.devices.size()))
    throw UsageError(fmt::format("platform file {}: asked for {} devices, it has {}", spec_.path,
                                 devices, spec_.devices.size()));
  attached_.assign(devices_, nullptr);
  for (const auto& l : spec_.links) {
    channels_.push_back({l.gbs_ab * 1e9, l.latency_us * 1e-6, 0});
    channels_.push_back({l.gbs_ba * 1e9, l.latency_us * 1e-6, 0});
  }
  // Routes: the fastest path for a tile-sized transfer (8 MB), over links and switches; the host
  // and the devices are endpoints only (a route does not pass through them).
  std::map<std::string, int> node;
  node["host"] = 0;
  for (std::size_t d = 0; d < spec_.devices.size(); ++d) node[spec_.devices[d].id] = 1 + d;
  int next = 1 + static_cast<int>(spec_.devices.size());
  for (const auto& s : spec_.switches) node[s] = next++;
  std::vector<std::vector<std::pair<int, int>>> adjacent(next);  // (neighbour, channel)
  for (std::size_t i = 0; i < spec_.links.size(); ++i) {
    int a = node[spec_.links[i].a], b = node[spec_.links[i].b];
    adjacent[a].push_back({b, static_cast<int>(2 * i)});
    adjacent[b].push_back({a, static_cast<int>(2 * i + 1)});
  }
  auto cost = [&](int channel) {
    return channels_[channel].latency_s + 8e6 / channels_[channel].gbs;
  };
  const int endpoints = 1 + static_cast<int>(spec_.devices.size());
  for (int from = 0; from <= devices_; ++from) {
    std::vector<double> dist(next, 1e300);
    std::vector<int> via(next, -1), prev(next, -1);
    std::vector<bool> done(next, false);
    dist[from] = 0;
    for (;;) {  // Dijkstra on a graph of a few dozen nodes
      int n = -1;
      for (int m = 0; m < next; ++m)
        if (!done[m] && dist[m] < 1e300 && (n < 0 || dist[m] < dist[n])) n = m;
      if (n < 0) break;
      done[n] = true;
      if (n != from && n < endpoints) continue;  // host and devices do not forward
      for (auto [m, channel] : adjacent[n])
        if (dist[n] + cost(channel) < dist[m]) {
          dist[m] = dist[n] + cost(channel);
          prev[m] = n;
          via[m] = channel;
        }
    }
    for (int to = 0; to <= devices_; ++to) {
      if (to == from || prev[to] < 0) continue;
      std::vector<int> path;
      for (int n = to; n != from; n = prev[n]) path.push_back(via[n]);
      std::reverse(path.begin(), path.end());
      routes_[{from, to}] = std::move(path);
    }
  }
  node_of_["host"] = host_node();
  for (int d = 0; d < devices_; ++d) node_of_[spec_.devices[d].id] = device_node(d);
  for (int d = 0; d < devices_; ++d)
    if (!has_route(host_node(), device_node(d)) || !has_route(device_node(d), host_node()))
      throw UsageError(fmt::format("platform file {}: 'links' give no route between host and {}",
                                   spec_.path, spec_.devices[d].id));
  if (!clock) {
    clock_->cpu_task_seconds = [this](const device::CodeletImpl& c, const TaskContext& ctx) {
      return spec_.host.seconds(c, ctx, "platform " + spec_.name + ", host");
    };
    clock_->run_cpu_functions = run_kernels_;
  }
}

bool Platform::has_route(int from, int to) const { return routes_.count({from, to}) > 0; }

std::pair<double, double> Platform::transfer(int from, int to, std::size_t bytes, double ready_s,
                                             double factor) {
  std::lock_guard lock(mutex_);
  const std::vector<int>& path = routes_.at({from, to});
  double start = ready_s, latency = 0, gbs = 0;
  for (int c : path) {
    start = std::max(start, channels_[c].free_s);
    latency += channels_[c].latency_s;
    gbs = gbs == 0 ? channels_[c].gbs : std::min(gbs, channels_[c].gbs);
  }
  double end = start + latency + factor * static_cast<double>(bytes) / gbs;
  for (int c : path) channels_[c].free_s = end;
  if (trace_) {
    const char* name = factor != 1           ? "peer read"
                       : from == host_node() ? "copy h2d"
                       : to == host_node()   ? "copy d2h"
                                             : "copy d2d";
    for (int c : path)
      trace_->add(links_pid(devices_), c + 1, name, "transfer", start * 1e6, end * 1e6);
  }
  return {start, end};
}

void Platform::attach_trace(Trace* trace) {
  std::lock_guard lock(mutex_);
  if (trace_ == trace || !trace) return;
  trace_ = trace;
  // Only the channels that some route between the used nodes takes.
  std::set<int> used;
  for (const auto& [ends, path] : routes_) used.insert(path.begin(), path.end());
  trace->name_process(links_pid(devices_), "links");
  for (int c : used) {
    const LinkSpec& l = spec_.links[c / 2];
    trace->name_track(links_pid(devices_), c + 1,
                      c % 2 == 0 ? l.a + " -> " + l.b : l.b + " -> " + l.a);
  }
}

double Platform::task_seconds(const std::string& codelet, const std::string& device, double flops,
                              std::uint64_t bytes) const {
  if (device == "cpu") return spec_.host.seconds(codelet, flops, static_cast<double>(bytes));
  auto it = node_of_.find(device);
  if (it == node_of_.end() || it->second == host_node()) return -1;
  return spec_.devices[it->second - 1].compute.seconds(codelet, flops, static_cast<double>(bytes));
}

double Platform::copy_seconds(const std::string& from, const std::string& to,
                              std::uint64_t bytes) const {
  auto a = node_of_.find(from == "cpu" ? "host" : from);
  auto b = node_of_.find(to == "cpu" ? "host" : to);
  if (a == node_of_.end() || b == node_of_.end()) return -1;
  if (a->second == b->second || bytes == 0) return 0;
  auto route = routes_.find({a->second, b->second});
  if (route == routes_.end()) return -1;
  // The arithmetic of transfer() for a copy issued now, reserving nothing: the backlog is the
  // latest end of what the route's channels already carry (the copies that the lanes enqueued).
  double latency = 0, gbs = 0, backlog = 0;
  double now = clock_->now_s();
  std::lock_guard lock(mutex_);
  for (int c : route->second) {
    latency += channels_[c].latency_s;
    gbs = gbs == 0 ? channels_[c].gbs : std::min(gbs, channels_[c].gbs);
    backlog = std::max(backlog, channels_[c].free_s - now);
  }
  return backlog + latency + static_cast<double>(bytes) / gbs;
}

}  // namespace conveyor::device::simulated

namespace conveyor {

std::size_t platform_device_count(const std::string& platform_file) {
  return device::simulated::read_platform(platform_file).devices.size();
}

int platform_host_cores(const std::string& platform_file) {
  return device::simulated::read_platform(platform_file).host_cores;
}

std::vector<std::string> platform_device_ids(const std::string& platform_file) {
  std::vector<std::string> ids;
  for (const auto& d : device::simulated::read_platform(platform_file).devices) ids.push_back(d.id);
  return ids;
}

}  // namespace conveyor
