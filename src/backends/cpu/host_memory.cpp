#include "host_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"

#ifdef CONVEYOR_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif
#ifdef CONVEYOR_HAVE_MEMKIND
#include <hbwmalloc.h>
#endif

namespace conveyor::backend::cpu {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::string node_list(const std::vector<int>& nodes) {
  std::string out;
  for (int node : nodes) {
    if (!out.empty()) out += ',';
    out += std::to_string(node);
  }
  return out;
}

void require_numa(std::string_view option) {
#ifdef CONVEYOR_HAVE_NUMA
  if (numa_available() < 0)
    throw UsageError(
        fmt::format("{}: this kernel has no NUMA support (numa_available() failed)", option));
#else
  throw UsageError(fmt::format(
      "{}: Conveyor was built without libnuma (install libnuma-dev and rebuild)", option));
#endif
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

#ifdef CONVEYOR_HAVE_NUMA
void bind_to_nodes(void* data, std::size_t bytes, const std::vector<int>& nodes) {
  constexpr int kBits = 8 * sizeof(unsigned long);
  int highest = 0;
  for (int node : nodes) highest = std::max(highest, node);
  std::vector<unsigned long> mask(highest / kBits + 1, 0);
  for (int node : nodes) mask[node / kBits] |= 1UL << (node % kBits);
  // The kernel reads maxnode - 1 bits.
  if (mbind(data, bytes, MPOL_BIND, mask.data(), mask.size() * kBits + 1, 0) != 0)
    throw Error(
        fmt::format("mbind to NUMA node(s) {} failed: {}", node_list(nodes), std::strerror(errno)));
}
#endif

}  // namespace

HostPlacement resolve_placement(const StreamConfig& config) {
  HostPlacement placement;
  placement.huge_pages = config.huge_pages;
  placement.tier = config.tier;
  const Topology& t = host_topology();
  if (config.numa_node >= 0 && config.tier != MemoryTier::Default)
    throw UsageError("--numa and --tier both place the arrays: give one of them");
  if (config.numa_node >= 0) {
    std::vector<int> nodes;
    for (const auto& node : t.numa_nodes) nodes.push_back(node.os_index);
    if (std::find(nodes.begin(), nodes.end(), config.numa_node) == nodes.end())
      throw UsageError(fmt::format("--numa: node {} does not exist (this machine has node{} {})",
                                   config.numa_node, nodes.size() > 1 ? "s" : "",
                                   node_list(nodes)));
    require_numa("--numa");
    placement.numa_nodes = {config.numa_node};
    return placement;
  }
  if (config.tier == MemoryTier::Default) return placement;

  std::vector<int> fast, ordinary;
  for (const auto& node : t.numa_nodes) {
    if (node.memory_bytes == 0) continue;
    (node.high_bandwidth ? fast : ordinary).push_back(node.os_index);
  }
  if (!fast.empty() && !ordinary.empty()) {
    require_numa("--tier");
    placement.numa_nodes = config.tier == MemoryTier::Hbm ? fast : ordinary;
    return placement;
  }
#ifdef CONVEYOR_HAVE_MEMKIND
  // No HBM node is named in the topology, but memkind may still know one (e.g. from its own
  // detection or MEMKIND_HBW_NODES).
  if (config.tier == MemoryTier::Hbm && hbw_check_available() == 0) {
    placement.memkind_hbw = true;
    return placement;
  }
#endif
  throw UsageError(fmt::format(
      "--tier {}: this machine has a single memory tier (no HBM/MCDRAM NUMA node{}); "
      "'conveyor devices' lists the NUMA nodes",
      to_string(config.tier),
#ifdef CONVEYOR_HAVE_MEMKIND
      ", and memkind finds no high-bandwidth memory"
#else
      ""
#endif
      ));
}

std::uint64_t placement_free_bytes(const HostPlacement& placement) {
#ifdef CONVEYOR_HAVE_NUMA
  if (!placement.numa_nodes.empty()) {
    std::uint64_t total = 0;
    for (int node : placement.numa_nodes) {
      long long free_bytes = 0;
      if (numa_node_size64(node, &free_bytes) >= 0 && free_bytes > 0) total += free_bytes;
    }
    return total;
  }
#endif
  (void)placement;
  return available_memory_bytes();
}

HostBuffer::HostBuffer(std::size_t bytes, const HostPlacement& placement) : bytes_(bytes) {
  if (bytes == 0) bytes = 1;
#ifdef CONVEYOR_HAVE_MEMKIND
  if (placement.memkind_hbw) {
    if (hbw_posix_memalign(&data_, kHugePage, bytes) != 0)
      throw Error(fmt::format("hbw_posix_memalign of {} bytes failed", bytes));
    memkind_ = true;
    return;
  }
#endif
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t align = placement.huge_pages ? kHugePage : page;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  map_bytes_ = rounded + (align > page ? align : 0);
  map_ = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error(fmt::format("mmap of {} bytes failed: {}", map_bytes_, std::strerror(errno)));
  }
  auto base = reinterpret_cast<std::uintptr_t>(map_);
  data_ = reinterpret_cast<void*>((base + align - 1) / align * align);
  // Without huge pages asked for, refuse them explicitly: under THP "always" the kernel would
  // otherwise use them anyway.
  madvise(data_, rounded, placement.huge_pages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#ifdef CONVEYOR_HAVE_NUMA
  if (!placement.numa_nodes.empty()) {
    try {
      bind_to_nodes(data_, rounded, placement.numa_nodes);
    } catch (...) {
      munmap(map_, map_bytes_);
      throw;
    }
  }
#endif
}

HostBuffer::~HostBuffer() {
#ifdef CONVEYOR_HAVE_MEMKIND
  if (memkind_) {
    hbw_free(data_);
    return;
  }
#endif
  if (map_) munmap(map_, map_bytes_);
}

nlohmann::json placement_record(const HostPlacement& placement) {
  nlohmann::json nodes = nlohmann::json::array();
  for (int node : placement.numa_nodes) nodes.push_back(node);
  bool huge = placement.huge_pages && !placement.memkind_hbw;
  return {{"numa_nodes", nodes},
          {"tier", std::string(to_string(placement.tier))},
          {"allocator", placement.memkind_hbw ? "memkind-hbw" : "mmap"},
          {"huge_pages", huge},
          {"alignment_bytes", placement.huge_pages || placement.memkind_hbw
                                  ? kHugePage
                                  : static_cast<std::size_t>(sysconf(_SC_PAGESIZE))},
          {"thp_mode", thp_mode()}};
}

}  // namespace conveyor::backend::cpu
