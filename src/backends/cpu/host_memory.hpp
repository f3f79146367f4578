#pragma once
// Page-backed host buffers for bandwidth measurements: 2 MiB-aligned with transparent huge pages
// requested (or explicitly refused), optionally bound to a set of NUMA nodes or taken from the
// high-bandwidth tier. Nothing is touched here: pages are placed by whoever writes them first, so
// callers initialise in parallel from the threads that will use them.
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "conveyor/stream.hpp"

namespace conveyor::backend::cpu {

struct HostPlacement {
  bool huge_pages = true;
  std::vector<int> numa_nodes;  ///< bind to these nodes (empty: the OS default policy)
  bool memkind_hbw = false;     ///< allocate with memkind's hbw_posix_memalign instead
  MemoryTier tier = MemoryTier::Default;
};

/// Resolves --numa / --tier into a placement; throws UsageError for a node that does not exist,
/// a tier this machine lacks, or a request that needs libnuma when Conveyor was built without it.
HostPlacement resolve_placement(const StreamConfig& config);

/// Bytes free where `placement` allocates: the bound NUMA nodes' free memory, else
/// MemAvailable.
std::uint64_t placement_free_bytes(const HostPlacement& placement);

class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, const HostPlacement& placement);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  double* data() const { return static_cast<double*>(data_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* map_ = nullptr;  // what munmap releases (mmap path)
  std::size_t map_bytes_ = 0;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool memkind_ = false;
};

/// The placement as recorded in results: numa_nodes, tier, huge_pages, alignment_bytes,
/// thp_mode (the kernel's transparent_hugepage setting), allocator.
nlohmann::json placement_record(const HostPlacement& placement);

}  // namespace conveyor::backend::cpu
