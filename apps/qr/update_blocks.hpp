#pragma once
/// The order in which a blocked WY update (gemqrt, tpmqrt) applies its blocks of reflectors, shared
/// by the CUDA and CLBlast updates: Q^T = H_(k-1) ... H_0 takes the first block first, Q the last.
///
///   for (int step = 0; step < update_blocks(k, kb); ++step)
///     apply_block(update_block_start(transpose, step, update_blocks(k, kb), kb));
namespace conveyor::apps::qr {

/// Blocks of `width` reflectors that k reflectors make (the last one narrower when width does not
/// divide k).
inline int update_blocks(int k, int width) { return (k + width - 1) / width; }

/// The first reflector of the block applied at `step` (0-based) of `blocks`.
inline int update_block_start(bool transpose, int step, int blocks, int width) {
  return (transpose ? step : blocks - 1 - step) * width;
}

}  // namespace conveyor::apps::qr
