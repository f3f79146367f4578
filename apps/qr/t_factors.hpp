#pragma once
/// The triangular factors T of the tile QR's blocks of reflectors: one tile per tile on and below
/// the diagonal, T_kk from geqrt(k) and T_ik from tpqrt(i, k), each ib_k x w_k with w_k the width
/// of tile column k and ib_k = min(ib, w_k) (LAPACK needs ib <= the number of reflectors, which the
/// ragged last column may make smaller than ib). They live apart from the matrix, which holds R
/// and the reflectors V, because the runtime moves each tile as its own buffer and Q can only be
/// rebuilt (the check) with them. The matrix is square or has more rows than columns (m >= n):
/// then there are more tile rows than tile columns, and the last tile column's diagonal tile may be
/// taller than wide.
///
/// With a reduction tree over several domains (qr_graph.hpp), the TT kernels' factors TT_ik, for
/// the domain tops k < i < k + domains, are kept apart too: T_ik of a top holds geqrt's factors.
///
///   TFactors<double> t(n, block, 32);
///   factorize(rt, codelets, a, n, n, block, t);   // fills t
///   double* tkk = t.tile(k, k);                   // leading dimension t.ld()
///   TFactors<double> tall(MatrixSize{m, n}, block, 32);   // m x n, m >= n
///   TFactors<double> tree(n, block, 32, 2);       // two domains: tree.tree_tile(k + 1, k) too
#include <algorithm>
#include <cstddef>
#include <vector>

#include "qr/qr_graph.hpp"

namespace conveyor::apps::qr {

/// The inner blocking of a factorisation in tiles of `block`: `ib` when it is given (positive),
/// taken as the block when larger; else (0), on CPU workers alone, 64, or block / 8 for tiles
/// above 512, at most 128, and with devices (or on a simulated platform) 32. Each block of
/// reflectors updates a tile by products ib x b x b and b x b x ib, and OpenBLAS packs the whole
/// tile for each, so taller blocks pack it fewer times: on a 2-core AMD EPYC, double, the rule made
/// `conveyor qr` 1.13-1.30x faster than ib 32 at n = 2048-8192, and ib 256 at tile 1024 was slower
/// than 128. Devices gain nothing measured from it (the CUDA updates merge blocks of 128 anyway;
/// PoCL within its noise) and copy T tiles twice the size (docs/qr.md, "Inner blocking").
inline int inner_block_for(int ib, int block, bool with_devices) {
  if (ib > 0) return std::min(ib, block);
  return std::min(block, with_devices ? 32 : std::clamp(block / 8, 64, 128));
}

/// Rows and columns of a matrix.
struct MatrixSize {
  int rows, cols;
};

template <typename T>
class TFactors {
 public:
  /// Factors for an m x n matrix (m >= n) in block x block tiles with inner blocking ib, factorised
  /// with `domains` domains of tile rows (all positive).
  TFactors(MatrixSize size, int block, int ib, int domains = 1)
      : m_(size.rows),
        n_(size.cols),
        block_(block),
        ib_(ib),
        mt_((m_ + block - 1) / block),
        nt_((n_ + block - 1) / block),
        domains_(domains),
        storage_(tiles_on_and_below_diagonal() * static_cast<std::size_t>(ib) * block),
        tree_(static_cast<std::size_t>(nt_) * (domains - 1) * ib * block) {}
  /// Factors for a square n x n matrix.
  TFactors(int n, int block, int ib, int domains = 1)
      : TFactors(MatrixSize{n, n}, block, ib, domains) {}

  int m() const { return m_; }
  int n() const { return n_; }
  int block() const { return block_; }
  /// Tile columns (tiles per side of a square matrix).
  int tiles() const { return nt_; }
  /// Tile rows: tiles() when square, more when m > n.
  int row_tiles() const { return mt_; }
  /// Width of tile column k (the last one is narrower when block does not divide n).
  int width(int k) const { return std::min(block_, n_ - k * block_); }
  /// Height of tile row i (the last one is shorter when block does not divide m).
  int height(int i) const { return std::min(block_, m_ - i * block_); }
  /// The inner blocking used in tile column k.
  int ib(int k) const { return std::min(ib_, width(k)); }
  long ld() const { return ib_; }
  int domains() const { return domains_; }
  /// Rows of T_ik: ib(k), except for a domain top (k <= i < k + domains), whose geqrt has only
  /// min(height(i), width(k)) reflectors, which the inner blocking may not exceed (a ragged last
  /// row).
  int rows(int i, int k) const {
    return is_domain_top(i, k, domains_) ? std::min(ib(k), height(i)) : ib(k);
  }
  /// T_ik, i >= k: the tiles on and below the diagonal are packed by columns.
  T* tile(int i, int k) { return storage_.data() + offset(i, k); }
  const T* tile(int i, int k) const { return storage_.data() + offset(i, k); }
  /// TT_ik of the tree, k < i < k + domains (and i < row_tiles()).
  T* tree_tile(int i, int k) { return tree_.data() + tree_offset(i, k); }
  const T* tree_tile(int i, int k) const { return tree_.data() + tree_offset(i, k); }

 private:
  // Column k holds rows k .. mt - 1.
  std::size_t tiles_on_and_below_diagonal() const {
    return static_cast<std::size_t>(nt_) * mt_ - static_cast<std::size_t>(nt_) * (nt_ - 1) / 2;
  }
  std::size_t offset(int i, int k) const {
    std::size_t before =
        static_cast<std::size_t>(k) * mt_ - static_cast<std::size_t>(k) * (k - 1) / 2;
    return (before + static_cast<std::size_t>(i - k)) * static_cast<std::size_t>(ib_) * block_;
  }

  std::size_t tree_offset(int i, int k) const {
    return (static_cast<std::size_t>(k) * (domains_ - 1) + static_cast<std::size_t>(i - k - 1)) *
           static_cast<std::size_t>(ib_) * block_;
  }

  int m_, n_, block_, ib_, mt_, nt_, domains_;
  std::vector<T> storage_, tree_;
};

}  // namespace conveyor::apps::qr
