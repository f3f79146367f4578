#include "distributed/network.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conveyor/error.hpp"
#include "device/simulated/json_reader.hpp"

namespace conveyor::distributed {
namespace {

using device::simulated::Reader;
using nlohmann::json;

// The simulated transport runs every rank's runtime (a thread per core and per device) in one
// process: a few thousand nodes is already far beyond what one machine can hold.
constexpr int kMaxNodes = 4096;

const char* topology_name(NetworkSpec::Topology t) {
  switch (t) {
    case NetworkSpec::Topology::Crossbar:
      return "crossbar";
    case NetworkSpec::Topology::FatTree:
      return "fat-tree";
    case NetworkSpec::Topology::Torus:
      return "torus";
  }
  return "?";
}

NetworkSpec read_network(const Reader& r, int nodes) {
  NetworkSpec n;
  const std::string topology = r.text("topology", true);
  if (topology == "crossbar")
    n.topology = NetworkSpec::Topology::Crossbar;
  else if (topology == "fat-tree")
    n.topology = NetworkSpec::Topology::FatTree;
  else if (topology == "torus")
    n.topology = NetworkSpec::Topology::Torus;
  else
    r.fail(fmt::format("must be crossbar, fat-tree or torus (got '{}')", topology), "topology");
  // A key of another topology is most likely a file edited from another one: say so, rather than
  // list the known keys.
  const bool fat = n.topology == NetworkSpec::Topology::FatTree;
  const bool torus = n.topology == NetworkSpec::Topology::Torus;
  const std::pair<const char*, bool> used[] = {{"link_gbs", fat || torus},
                                               {"hop_latency_us", fat || torus},
                                               {"nodes_per_switch", fat},
                                               {"uplinks", fat},
                                               {"dims", torus}};
  for (const auto& [key, here] : used)
    if (!here && r.has(key)) r.fail(fmt::format("is not used by a {} network", topology), key);
  r.allow({"topology", "nic_gbs", "link_gbs", "nodes_per_switch", "uplinks", "dims", "latency_us",
           "hop_latency_us", "overhead_us", "eager_bytes"});

  n.nic_gbs = r.number("nic_gbs", 0, true, true);
  n.latency_us = r.number("latency_us", 0);
  n.overhead_us = r.number("overhead_us", 0);
  const double eager = r.number("eager_bytes", static_cast<double>(n.eager_bytes));
  // 0 is allowed (every message has a rendezvous); at most 1e18: it must fit the uint64_t.
  if (eager != std::floor(eager) || eager > 1e18)
    r.fail(fmt::format("must be a whole number of bytes up to 1e18 (got {})", eager),
           "eager_bytes");
  n.eager_bytes = static_cast<std::uint64_t>(eager);
  if (fat || torus) {
    n.link_gbs = r.number("link_gbs", 0, true, true);
    n.hop_latency_us = r.number("hop_latency_us", 0);
  }
  if (fat) {
    n.nodes_per_switch = r.whole("nodes_per_switch", 0, true, kMaxNodes);
    n.uplinks = r.whole("uplinks", 0, true, kMaxNodes);
    // More cables than nodes under the leaf could never all be busy (a node's NIC carries one
    // message at a time); a bound also keeps the channels few.
    if (n.uplinks > n.nodes_per_switch)
      r.fail(fmt::format("must be at most nodes_per_switch ({}; got {})", n.nodes_per_switch,
                         n.uplinks),
             "uplinks");
  }
  if (torus) {
    const json& dims = r.at("dims");
    if (!dims.is_array() || dims.empty())
      r.fail("must be a non-empty array of whole numbers", "dims");
    double product = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const json& d = dims[i];
      if (!d.is_number() || d.get<double>() < 1 || d.get<double>() != std::floor(d.get<double>()) ||
          d.get<double>() > kMaxNodes)
        r.fail(fmt::format("must be a whole number from 1 to {} (got {})", kMaxNodes, d.dump()),
               fmt::format("dims[{}]", i));
      n.dims.push_back(d.get<int>());
      product *= n.dims.back();  // a double: 12 dims of 4096 do not overflow it
    }
    if (product != nodes)
      r.fail(fmt::format("must multiply to 'nodes' ({}; got {} = {})", nodes,
                         fmt::join(n.dims, "x"), product),
             "dims");
  }
  return n;
}

}  // namespace

ClusterSpec parse_cluster(const std::string& text, const std::string& origin,
                          const std::string& base_dir) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e999
    throw UsageError(fmt::format("cluster file {}: not JSON: {}", origin, e.what()));
  }
  Reader top(doc, origin, "", "cluster file");
  top.allow({"name", "description", "nodes", "node", "network"});
  ClusterSpec c;
  c.path = origin;
  c.name = top.text("name", true);
  c.description = top.text("description");
  c.nodes = top.whole("nodes", 0, true, kMaxNodes);
  const std::string node = top.text("node", true);
  if (node.empty()) top.fail("must name a node platform file", "node");
  c.network = read_network(top.child("network"), c.nodes);

  // The file's own errors first, then the node file's.
  std::filesystem::path file(node);
  c.node_file = file.is_absolute() ? node : (std::filesystem::path(base_dir) / file).string();
  try {
    c.node = device::simulated::read_platform(c.node_file);
  } catch (const UsageError& e) {
    top.fail(fmt::format("names a node platform that cannot be used: {}", e.what()), "node");
  }
  return c;
}

ClusterSpec read_cluster(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("cluster file {}: cannot be read", path));
  std::stringstream text;
  text << in.rdbuf();
  std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_cluster(text.str(), path, dir.empty() ? "." : dir);
}

bool is_cluster_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("network");
}

// ---- the running network ------------------------------------------------------------------------

Network::Network(const NetworkSpec& spec, int nodes) : spec_(spec), nodes_(nodes) {
  // The same checks as the reader's, for a spec built in code.
  auto bad = [&](const std::string& what) {
    throw UsageError(fmt::format("{} network: {}", topology_name(spec_.topology), what));
  };
  if (nodes_ < 1 || nodes_ > kMaxNodes)
    bad(fmt::format("needs 1 to {} nodes (got {})", kMaxNodes, nodes_));
  if (!(spec_.nic_gbs > 0)) bad("nic_gbs must be positive");
  for (int n = 0; n < nodes_; ++n) {
    channels_.push_back({fmt::format("nic {} out", n), spec_.nic_gbs * 1e9});
    channels_.push_back({fmt::format("nic {} in", n), spec_.nic_gbs * 1e9});
  }
  const bool fat = spec_.topology == NetworkSpec::Topology::FatTree;
  const bool torus = spec_.topology == NetworkSpec::Topology::Torus;
  if ((fat || torus) && !(spec_.link_gbs > 0)) bad("link_gbs must be positive");
  if (fat) {
    if (spec_.nodes_per_switch < 1 || spec_.uplinks < 1 || spec_.uplinks > spec_.nodes_per_switch)
      bad("needs 1 <= uplinks <= nodes_per_switch");
    leaves_ = (nodes_ + spec_.nodes_per_switch - 1) / spec_.nodes_per_switch;
    up_base_ = static_cast<int>(channels_.size());
    for (int l = 0; l < leaves_; ++l)
      for (int k = 0; k < spec_.uplinks; ++k)
        channels_.push_back({fmt::format("leaf {} up {}", l, k), spec_.link_gbs * 1e9});
    down_base_ = static_cast<int>(channels_.size());
    for (int l = 0; l < leaves_; ++l)
      for (int k = 0; k < spec_.uplinks; ++k)
        channels_.push_back({fmt::format("leaf {} down {}", l, k), spec_.link_gbs * 1e9});
  }
  if (torus) {
    if (spec_.dims.empty()) bad("dims must not be empty");
    double product = 1;
    for (int d : spec_.dims) {
      if (d < 1) bad("dims must be positive");
      product *= d;
    }
    if (product < nodes_ || product > kMaxNodes)
      bad(fmt::format("dims hold {} positions, for {} nodes (at most {})", product, nodes_,
                      kMaxNodes));
    positions_ = static_cast<int>(product);
    torus_base_ = static_cast<int>(channels_.size());
    const char* letters = "xyz";
    for (int p = 0; p < positions_; ++p) {
      const std::string at = fmt::format("{}", fmt::join(coordinates(p), ","));
      for (std::size_t i = 0; i < spec_.dims.size(); ++i) {
        std::string dim = i < 3 ? std::string(1, letters[i]) : fmt::format("d{}", i);
        for (char sign : {'+', '-'})
          channels_.push_back(
              {fmt::format("torus ({}) {}{}", at, sign, dim), spec_.link_gbs * 1e9});
      }
    }
  }
  // The largest latency between two nodes in use, for collective_s.
  int most = nodes_ > 1 ? 1 : 0;
  if (fat && leaves_ > 1) most = 3;
  if (torus && nodes_ == positions_) {
    most = 0;
    for (int d : spec_.dims) most += d / 2;
  } else if (torus) {  // part of the torus: no closed form; at most 4096^2 / 2 pairs, once
    std::vector<std::vector<int>> at;
    for (int n = 0; n < nodes_; ++n) at.push_back(coordinates(n));
    for (int a = 0; a < nodes_; ++a)
      for (int b = a + 1; b < nodes_; ++b) most = std::max(most, torus_distance(at[a], at[b]));
  }
  max_latency_s_ = most == 0 ? 0 : (spec_.latency_us + (most - 1) * spec_.hop_latency_us) * 1e-6;
}

void Network::check_ends(int from, int to) const {
  for (int n : {from, to})
    if (n < 0 || n >= nodes_)
      throw Error(fmt::format("network: node {} out of range ({} nodes)", n, nodes_));
}

std::vector<int> Network::coordinates(int node) const {
  std::vector<int> c;
  for (int d : spec_.dims) {
    c.push_back(node % d);
    node /= d;
  }
  return c;
}

int Network::torus_distance(const std::vector<int>& a, const std::vector<int>& b) const {
  int h = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int d = spec_.dims[i], delta = ((b[i] - a[i]) % d + d) % d;
    h += std::min(delta, d - delta);
  }
  return h;
}

int Network::hops(int from, int to) const {
  check_ends(from, to);
  if (from == to) return 0;
  switch (spec_.topology) {
    case NetworkSpec::Topology::Crossbar:
      return 1;
    case NetworkSpec::Topology::FatTree:
      return from / spec_.nodes_per_switch == to / spec_.nodes_per_switch ? 1 : 3;
    case NetworkSpec::Topology::Torus:
      return torus_distance(coordinates(from), coordinates(to));
  }
  return 0;
}

double Network::latency_s(int from, int to) const {
  int h = hops(from, to);
  return h == 0 ? 0 : (spec_.latency_us + (h - 1) * spec_.hop_latency_us) * 1e-6;
}

int Network::earliest(int first, int count) const {
  int best = first;
  for (int c = first + 1; c < first + count; ++c)
    if (channels_[c].free_s < channels_[best].free_s) best = c;
  return best;
}

std::vector<int> Network::path(int from, int to) const {
  std::vector<int> p{2 * from};
  if (spec_.topology == NetworkSpec::Topology::FatTree) {
    const int a = from / spec_.nodes_per_switch, b = to / spec_.nodes_per_switch;
    if (a != b) {
      p.push_back(earliest(up_base_ + a * spec_.uplinks, spec_.uplinks));
      p.push_back(earliest(down_base_ + b * spec_.uplinks, spec_.uplinks));
    }
  } else if (spec_.topology == NetworkSpec::Topology::Torus) {
    std::vector<int> at = coordinates(from), dst = coordinates(to);
    const int D = static_cast<int>(at.size());
    for (int i = 0; i < D; ++i) {
      const int d = spec_.dims[i], delta = ((dst[i] - at[i]) % d + d) % d;
      const bool plus = delta <= d - delta;
      for (int step = 0; step < (plus ? delta : d - delta); ++step) {
        int position = 0;
        for (int j = D - 1; j >= 0; --j) position = position * spec_.dims[j] + at[j];
        p.push_back(torus_base_ + (position * D + i) * 2 + (plus ? 0 : 1));
        at[i] = (at[i] + (plus ? 1 : d - 1)) % d;
      }
    }
  }
  p.push_back(2 * to + 1);
  return p;
}

Network::Times Network::transfer(int from, int to, std::uint64_t bytes, double ready_s) {
  check_ends(from, to);
  if (from == to) throw Error(fmt::format("network: a transfer from node {} to itself", from));
  const double latency = latency_s(from, to);
  std::lock_guard lock(mutex_);
  double rate = 0;
  std::vector<int> p = path(from, to);
  for (int c : p) {
    rate = rate == 0 ? channels_[c].bytes_per_s : std::min(rate, channels_[c].bytes_per_s);
    auto& busy = channels_[c].busy;  // what ended before the horizon can no longer collide
    busy.erase(busy.begin(), std::find_if(busy.begin(), busy.end(),
                                          [&](const auto& b) { return b.second > horizon_s_; }));
  }
  const double duration = latency + static_cast<double>(bytes) / rate;
  // The earliest window [start, start + duration) free on every channel: move past each
  // reservation that overlaps it until none does.
  double start = ready_s;
  for (bool moved = true; moved;) {
    moved = false;
    for (int c : p) {
      const auto& busy = channels_[c].busy;
      auto it = std::upper_bound(busy.begin(), busy.end(), start,
                                 [](double t, const auto& b) { return t < b.second; });
      if (it != busy.end() && it->first < start + duration) {
        start = it->second;
        moved = true;
      }
    }
  }
  const double end = start + duration;
  for (int c : p) {
    auto& busy = channels_[c].busy;
    auto at = std::upper_bound(busy.begin(), busy.end(), start,
                               [](double t, const auto& b) { return t < b.first; });
    busy.insert(at, {start, end});
    channels_[c].free_s = std::max(channels_[c].free_s, end);
  }
  return {start, end};
}

void Network::forget_before(double time_s) {
  std::lock_guard lock(mutex_);
  horizon_s_ = std::max(horizon_s_, time_s);
}

std::vector<std::string> Network::route(int from, int to) const {
  check_ends(from, to);
  if (from == to) return {};
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (int c : path(from, to)) names.push_back(channels_[c].name);
  return names;
}

double Network::collective_s(std::uint64_t bytes) const {
  int rounds = 0;
  while ((1LL << rounds) < nodes_) ++rounds;
  return rounds * (max_latency_s_ + 2 * spec_.overhead_us * 1e-6 +
                   static_cast<double>(bytes) / (spec_.nic_gbs * 1e9));
}

}  // namespace conveyor::distributed
