#pragma once
/// The two codelets of the QR reduction tree (qr_graph.hpp's ttqrt and ttmqrt: LAPACK's tpqrt and
/// tpmqrt on a triangular lower tile), used where the tile rows are cut into several domains, i.e.
/// the distributed runs over several process rows. CPU implementations only (LAPACKE); without
/// LAPACKE they exist but throw, as QrCodelets' do.
///
///   TreeCodelets tree(Precision::Double);
///   dist.submit(tree.ttqrt, {{a_hk, Access::ReadWrite}, {a_ik, Access::ReadWrite},
///                            {tt_ik, Access::Write}});
#include "common/precision.hpp"
#include "conveyor/codelet.hpp"

namespace conveyor::apps::qr {

struct TreeCodelets {
  explicit TreeCodelets(common::Precision precision);
  common::Precision precision;
  /// Buffers: R_hk (rw), R_ik (rw, upper trapezoid), TT_ik (w).
  Codelet ttqrt;
  /// Buffers: V = A_ik (r, upper trapezoid), TT_ik (r), A_hj (rw), A_ij (rw).
  Codelet ttmqrt;
};

}  // namespace conveyor::apps::qr
