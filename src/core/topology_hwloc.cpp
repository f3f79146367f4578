// Topology through hwloc: also knows memory-tier subtypes (MCDRAM, HBM) of NUMA nodes.
#include <hwloc.h>

#include <algorithm>

#include "conveyor/error.hpp"
#include "conveyor/topology.hpp"

namespace conveyor {

std::uint64_t meminfo_bytes(const std::string& key);
std::string cpuinfo_model();

namespace {

std::vector<int> cpuset_pus(hwloc_const_cpuset_t set) {
  std::vector<int> pus;
  unsigned index;
  hwloc_bitmap_foreach_begin(index, set) pus.push_back(static_cast<int>(index));
  hwloc_bitmap_foreach_end();
  return pus;
}

bool is_high_bandwidth(const std::string& subtype) {
  return subtype == "MCDRAM" || subtype == "HBM";
}

Topology detect() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    throw Error("hwloc could not load the machine topology");
  Topology t;
  t.source = "hwloc";
  t.packages = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));

  int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nnodes; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    NumaNode node;
    node.os_index = static_cast<int>(obj->os_index);
    node.memory_bytes = obj->attr->numanode.local_memory;
    node.pus = cpuset_pus(obj->cpuset);
    if (obj->subtype) node.subtype = obj->subtype;
    node.high_bandwidth = is_high_bandwidth(node.subtype);
    t.numa_nodes.push_back(std::move(node));
  }

  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
    Core core;
    core.pus = cpuset_pus(obj->cpuset);
    if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, obj))
      core.package = static_cast<int>(pkg->logical_index);
    for (const auto& node : t.numa_nodes)
      if (!core.pus.empty() &&
          std::find(node.pus.begin(), node.pus.end(), core.pus[0]) != node.pus.end())
        core.numa_node = node.os_index;
    if (!core.pus.empty()) t.cores.push_back(std::move(core));
  }

  for (hwloc_obj_type_t level : {HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE}) {
    int n = hwloc_get_nbobjs_by_type(topo, level);
    if (n <= 0) continue;
    t.llc_level = level == HWLOC_OBJ_L3CACHE ? 3 : 2;
    for (int i = 0; i < n; ++i)
      t.llc_total_bytes += hwloc_get_obj_by_type(topo, level, i)->attr->cache.size;
    t.llc_bytes = hwloc_get_obj_by_type(topo, level, 0)->attr->cache.size;
    break;
  }

  hwloc_obj_t root = hwloc_get_root_obj(topo);
  const char* model = hwloc_obj_get_info_by_name(root, "CPUModel");
  if (!model) {
    if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
      model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
  }
  t.cpu_model = model ? model : cpuinfo_model();
  hwloc_topology_destroy(topo);
  t.memory_bytes = meminfo_bytes("MemTotal");
  t.available_bytes = meminfo_bytes("MemAvailable");
  return t;
}

}  // namespace

const Topology& host_topology() {
  static const Topology topology = detect();
  return topology;
}

}  // namespace conveyor
