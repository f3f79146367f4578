#pragma once
/// The check of a tile QR factorisation: Q is rebuilt from the stored reflectors by applying them
/// to the identity with the same LAPACK kernels the tasks used (sequentially on the host, every
/// BLAS thread), then, in double precision,
///
///   residual       ||A - Q R||_F / ||A||_F
///   orthogonality  ||Q^T Q - I||_F / n
///
/// each against a bound of c m u (u the unit roundoff of the factorisation's precision, m the
/// rows: n when square).
///
///   QrCheck c = check_qr(GeneralMatrix(n), a.data(), n, t);
///   bool ok = c.residual <= residual_bound<float>(n) && c.orthogonality <=
///   orthogonality_bound<float>(n);
#include <vector>

#include "qr/qr_matrix.hpp"
#include "qr/t_factors.hpp"

namespace conveyor::apps::qr {

struct QrCheck {
  double residual = 0;       ///< ||A - Q R||_F / ||A||_F (infinity when not finite)
  double orthogonality = 0;  ///< ||Q^T Q - I||_F / n (infinity when not finite)
};

/// The explicit m x m Q (column-major, leading dimension m; m = n when square) of a factorisation
/// left in `a` (leading dimension ld) and `t` by factorize or the distributed run (with
/// t.domains() domains, qr_graph.hpp): Q = Q_00 Q_10 ... Q_11 ..., the factorisation kernels' Q
/// in program order, applied to I from the right end, each step only on the columns it can change.
template <typename T>
std::vector<T> form_q(const T* a, long ld, const TFactors<T>& t);
/// Its first `columns` columns alone (n <= columns <= m; n: numpy.linalg.qr's reduced Q), m x
/// columns with leading dimension m, at the cost of those columns only. Throws UsageError for a
/// count out of that range.
template <typename T>
std::vector<T> form_q(const T* a, long ld, const TFactors<T>& t, int columns);

/// Throws UsageError unless n <= columns <= m: the columns of Q that can be formed for an m x n
/// matrix.
void check_q_columns(int m, int n, int columns);

/// The first `columns` columns of the m x m identity (column-major, leading dimension m), where
/// forming Q starts; throws UsageError unless n <= columns <= m (t's matrix is m x n).
template <typename T>
std::vector<T> identity_columns(const TFactors<T>& t, int columns);

/// Both measures for the factorisation of `original` (m x n) left in `a` and `t`, with the reduced
/// Q (m x n) and R (n x n). Needs an m x n and an n x n double matrix besides Q.
template <typename T>
QrCheck check_qr(const GeneralMatrix& original, const T* a, long ld, const TFactors<T>& t);

/// The largest residual and orthogonality accepted for a matrix of m rows (its order when square)
/// in precision T (why: qr_check.cpp).
template <typename T>
double residual_bound(int m);
template <typename T>
double orthogonality_bound(int m);

}  // namespace conveyor::apps::qr
