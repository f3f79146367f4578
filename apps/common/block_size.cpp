#include "common/block_size.hpp"

#include <algorithm>
#include <cmath>

#include "conveyor/topology.hpp"

namespace conveyor::apps::common {

int default_block(int n, int workers, int max_block) {
  const int p = std::max(workers, 1);
  // Tiles per side: enough for p workers to the end (4 sqrt(p), see the header), and enough that
  // no tile is larger than max_block.
  const int for_workers = static_cast<int>(std::ceil(4.0 * std::sqrt(static_cast<double>(p))));
  const int for_size = (n + max_block - 1) / max_block;
  const int tiles = std::max(for_workers, for_size);
  // The tile that splits n into that many, rounded down to the granule so that there are at
  // least that many (the last, ragged tile takes the rest), and never below the granule.
  const int block = (n + tiles - 1) / tiles / kBlockGranule * kBlockGranule;
  return std::max(block, kBlockGranule);
}

int block_for(int n, int block, const RuntimeOptions& options) {
  if (block > 0) return block;
  const int cpus = options.cpus < 0 ? static_cast<int>(host_topology().cores.size()) : options.cpus;
  return default_block(n, cpus + static_cast<int>(options.devices.size()),
                       cpus == 0 ? kMaxDeviceBlock : kMaxDefaultBlock);
}

}  // namespace conveyor::apps::common
