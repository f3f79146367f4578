#pragma once
/// The Cholesky application's tile size: the rule shared by the tiled apps (common/block_size.hpp,
/// docs/cholesky.md "Tile size"), under the names its callers have always used.
///
///   conveyor::apps::cholesky::default_block(8192, 2) == 1024
#include "common/block_size.hpp"

namespace conveyor::apps::cholesky {

using common::default_block;
using common::kBlockGranule;
using common::kMaxDefaultBlock;
using common::kMaxDeviceBlock;

}  // namespace conveyor::apps::cholesky
