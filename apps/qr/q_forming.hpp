#pragma once
/// The explicit Q of a tile QR factorisation, formed as tasks on the runtime: the factorisation's
/// reflectors applied to the first columns of the identity in reverse order, without transpose
/// (LAPACK's orgqr by tiles). Each tile column of Q is a chain of its own, so the columns are
/// formed in parallel, where form_q of qr_check.hpp applies every kernel in sequence on the host.
///
///   factorize(rt, codelets, a, m, t);                        // R and the reflectors in a, T in t
///   std::vector<double> q = form_q(rt, q_codelets, a, m, t, n);   // the reduced Q, m x n
///
/// The factorisation's kernels that make reflectors (geqrt, tpqrt, and with several domains the
/// tree's ttqrt; qr_graph.hpp), last first, each for every tile column j >= k of Q (columns left of
/// tile k are still those of I, which step k leaves alone):
///   apply_geqrt(h, k, j)   A_hk r, T_hk r, Q_hj rw             Q_hj <- Q_hk Q_hj
///   apply_tpqrt(i, k, j)   A_ik r, T_ik r, Q_hj rw, Q_ij rw    [Q_hj; Q_ij] <- Q_ik [Q_hj; Q_ij]
///   apply_ttqrt(i, k, j)   A_ik r, TT_ik r, Q_hj rw, Q_ij rw   the same with the tree's factors
/// (h the step's domain top). CPU implementations (LAPACKE's gemqrt and tpmqrt without transpose;
/// without LAPACKE they exist but throw), and for apply_geqrt and apply_tpqrt the factorisation's
/// OpenCL and CUDA update kernels applying Q (qr_device_codelets.hpp), so that Q is formed where
/// the factors are.
#include <vector>

#include "common/matrix_home.hpp"
#include "common/precision.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/runtime.hpp"
#include "qr/t_factors.hpp"

namespace conveyor::apps::qr {

struct QFormingCodelets {
  explicit QFormingCodelets(common::Precision precision);
  common::Precision precision;
  /// Buffers: V = A_hk (r), T_hk (r), Q_hj (rw).
  Codelet apply_geqrt;
  /// Buffers: V = A_ik (r), T_ik (r), Q_hj (rw; its first width(k) rows), Q_ij (rw).
  Codelet apply_tpqrt;
  /// Buffers: V = A_ik (r, upper trapezoid), TT_ik (r), Q_hj (rw), Q_ij (rw).
  Codelet apply_ttqrt;
};

/// The first `columns` columns of Q (n <= columns <= m), m x columns in column-major order with
/// leading dimension m, of the factorisation left in `a` (leading dimension ld) and `t` by
/// factorize (any number of domains). The tiles of `a` and `t` are registered with `rt` for
/// reading and unregistered before return, as are Q's. Throws UsageError for a count of columns out
/// of range or codelets of another precision; Error when a task fails.
template <typename T>
std::vector<T> form_q(Runtime& rt, const QFormingCodelets& codelets, const T* a, long ld,
                      const TFactors<T>& t, int columns);
/// The same into `q` (m x columns, leading dimension ldq >= m), which holds the first `columns`
/// columns of the identity on entry, with `a` and `q` where `home` says: a device of `rt` (a matrix
/// factorised in device memory, factorize with a MatrixHome) keeps the reflectors and Q there, each
/// tile a strided device home, so that tasks on that device copy neither in nor out; only the T
/// factors (host data) cross.
template <typename T>
void form_q(Runtime& rt, const QFormingCodelets& codelets, const T* a, long ld,
            const TFactors<T>& t, int columns, T* q, long ldq, const common::MatrixHome& home);

}  // namespace conveyor::apps::qr
