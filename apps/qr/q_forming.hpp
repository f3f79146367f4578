#pragma once
/// The explicit Q of a tile QR factorisation, formed as tasks on the runtime: the factorisation's
/// reflectors applied to the first columns of the identity in reverse order, without transpose
/// (LAPACK's orgqr by tiles). Each tile column of Q is a chain of its own, so the columns are
/// formed in parallel, where form_q of qr_check.hpp applies every kernel in sequence on the host.
///
///   factorize(rt, codelets, a, m, t);                        // R and the reflectors in a, T in t
///   std::vector<double> q = form_q(rt, q_codelets, a, m, t, n);   // the reduced Q, m x n
///
/// For each step k, last first: every tile row i > k (last first), for each tile column j >= k of Q
///   apply_tpqrt(i, k, j)   A_ik r, T_ik r, Q_kj rw, Q_ij rw    [Q_kj; Q_ij] <- Q_ik [Q_kj; Q_ij]
/// then for each j >= k
///   apply_geqrt(k, j)      A_kk r, T_kk r, Q_kj rw             Q_kj <- Q_kk Q_kj
/// (columns left of tile k are still those of I, which step k leaves alone). CPU implementations
/// (LAPACKE's gemqrt and tpmqrt without transpose); without LAPACKE they exist but throw.
#include <vector>

#include "common/precision.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"
#include "qr/t_factors.hpp"

namespace conveyor::apps::qr {

struct QFormingCodelets {
  explicit QFormingCodelets(common::Precision precision);
  common::Precision precision;
  /// Buffers: V = A_kk (r), T_kk (r), Q_kj (rw).
  Codelet apply_geqrt;
  /// Buffers: V = A_ik (r), T_ik (r), Q_kj (rw; its first width(k) rows), Q_ij (rw).
  Codelet apply_tpqrt;
};

/// The first `columns` columns of Q (n <= columns <= m), m x columns in column-major order with
/// leading dimension m, of the flat-tree factorisation (t.domains() = 1) left in `a` (leading
/// dimension ld) and `t` by factorize. The tiles of `a` and `t` are registered with `rt` for
/// reading and unregistered before return, as are Q's. Throws UsageError for a count of columns out
/// of range, a tree factorisation or codelets of another precision; Error when a task fails.
template <typename T>
std::vector<T> form_q(Runtime& rt, const QFormingCodelets& codelets, const T* a, long ld,
                      const TFactors<T>& t, int columns);

}  // namespace conveyor::apps::qr
