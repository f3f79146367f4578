// Topology from Linux sysfs, for builds without hwloc. Knows no memory-tier subtypes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"

namespace conveyor {

std::uint64_t meminfo_bytes(const std::string& key);
std::string cpuinfo_model();

namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A sysfs CPU list such as "0-3,8" -> {0,1,2,3,8}; empty for an empty list.
std::vector<int> cpulist(const std::string& text) {
  std::vector<int> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    std::size_t dash = item.find('-');
    int first = std::stoi(item.substr(0, dash));
    int last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) out.push_back(cpu);
  }
  return out;
}

Topology detect() {
  Topology t;
  t.source = "sysfs";
  t.cpu_model = cpuinfo_model();
  const fs::path cpu_root = "/sys/devices/system/cpu";
  std::map<std::pair<int, int>, Core> cores;  // (package, core id) -> core
  std::set<int> packages;
  std::map<std::string, std::uint64_t> llc_instances;  // shared_cpu_list -> size
  for (int cpu : cpulist(read_line(cpu_root / "online"))) {
    fs::path dir = cpu_root / ("cpu" + std::to_string(cpu));
    int package = std::atoi(read_line(dir / "topology/physical_package_id").c_str());
    int core_id = std::atoi(read_line(dir / "topology/core_id").c_str());
    packages.insert(package);
    Core& core = cores[{package, core_id}];
    core.package = package;
    core.pus.push_back(cpu);
    int best_level = 0;
    std::string best_shared;
    std::uint64_t best_size = 0;
    for (int index = 0; fs::exists(dir / "cache" / ("index" + std::to_string(index))); ++index) {
      fs::path cache = dir / "cache" / ("index" + std::to_string(index));
      if (read_line(cache / "type") == "Instruction") continue;
      int level = std::atoi(read_line(cache / "level").c_str());
      if (level < best_level) continue;
      best_level = level;
      best_shared = read_line(cache / "shared_cpu_list");
      best_size = parse_bytes(read_line(cache / "size"));
    }
    if (best_level >= t.llc_level) {
      if (best_level > t.llc_level) llc_instances.clear();
      t.llc_level = best_level;
      llc_instances[best_shared] = best_size;
    }
  }
  for (auto& [key, core] : cores) t.cores.push_back(core);
  t.packages = std::max<int>(1, static_cast<int>(packages.size()));
  for (const auto& [shared, size] : llc_instances) {
    t.llc_total_bytes += size;
    t.llc_bytes = size;
  }
  const fs::path node_root = "/sys/devices/system/node";
  if (fs::exists(node_root)) {
    for (const auto& entry : fs::directory_iterator(node_root)) {
      std::string name = entry.path().filename();
      if (name.rfind("node", 0) != 0 || !std::isdigit(static_cast<unsigned char>(name[4])))
        continue;
      NumaNode node;
      node.os_index = std::stoi(name.substr(4));
      node.pus = cpulist(read_line(entry.path() / "cpulist"));
      std::ifstream meminfo(entry.path() / "meminfo");
      std::string word;
      while (meminfo >> word)
        if (word == "MemTotal:") {
          std::uint64_t kib = 0;
          meminfo >> kib;
          node.memory_bytes = kib * 1024;
          break;
        }
      t.numa_nodes.push_back(std::move(node));
    }
  }
  std::sort(t.numa_nodes.begin(), t.numa_nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.os_index < b.os_index; });
  if (t.numa_nodes.empty()) {
    NumaNode node;
    for (const auto& core : t.cores)
      node.pus.insert(node.pus.end(), core.pus.begin(), core.pus.end());
    t.numa_nodes.push_back(std::move(node));
  }
  for (auto& core : t.cores)
    for (const auto& node : t.numa_nodes)
      if (std::find(node.pus.begin(), node.pus.end(), core.pus[0]) != node.pus.end())
        core.numa_node = node.os_index;
  t.memory_bytes = meminfo_bytes("MemTotal");
  t.available_bytes = meminfo_bytes("MemAvailable");
  if (t.numa_nodes.size() == 1 && t.numa_nodes[0].memory_bytes == 0)
    t.numa_nodes[0].memory_bytes = t.memory_bytes;
  return t;
}

}  // namespace

const Topology& host_topology() {
  static const Topology topology = detect();
  return topology;
}

}  // namespace conveyor
