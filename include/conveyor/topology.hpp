#pragma once
/// The host machine as the CPU side of Conveyor sees it: cores, caches, NUMA nodes and memory
/// tiers. Read through hwloc when Conveyor was built with it, else from Linux sysfs.
///
///   const conveyor::Topology& t = conveyor::host_topology();
///   std::cout << t.cores.size() << " cores, LLC " << conveyor::format_bytes(t.llc_total_bytes);
#include <cstdint>
#include <string>
#include <vector>

namespace conveyor {

struct Core {
  int package = 0;       ///< socket index
  int numa_node = 0;     ///< OS index of the NUMA node the core is local to
  std::vector<int> pus;  ///< OS indices of its hardware threads; pus[0] is the one Conveyor pins to
};

/// A NUMA node; memory-only nodes (no cores) are how HBM/MCDRAM and CXL tiers show up.
struct NumaNode {
  int os_index = 0;
  std::uint64_t memory_bytes = 0;
  std::vector<int> pus;  ///< empty for a memory-only node
  std::string subtype;   ///< hwloc's subtype ("MCDRAM", "HBM", "DRAM", ...) or empty when unknown
  /// True when the node is known to be a high-bandwidth tier (subtype HBM or MCDRAM, or memkind
  /// says so).
  bool high_bandwidth = false;
};

struct Topology {
  std::string cpu_model;
  std::string source;  ///< "hwloc" or "sysfs"
  int packages = 1;
  std::vector<Core> cores;
  std::vector<NumaNode> numa_nodes;
  std::uint64_t llc_total_bytes = 0;  ///< sum over all last-level cache instances
  std::uint64_t llc_bytes = 0;        ///< one instance
  int llc_level = 0;                  ///< 3 for L3, 2 when the machine has no L3
  std::uint64_t memory_bytes = 0;     ///< total host memory
  std::uint64_t available_bytes = 0;  ///< memory available now (MemAvailable)
};

/// The machine's topology, detected once and cached (thread-safe).
const Topology& host_topology();

/// Memory available now for a new allocation, in bytes (re-read every call).
std::uint64_t available_memory_bytes();

}  // namespace conveyor
