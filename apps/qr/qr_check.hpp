#pragma once
/// The check of a tile QR factorisation: Q is rebuilt from the stored reflectors by applying them
/// to the identity with the same LAPACK kernels the tasks used (sequentially on the host, every
/// BLAS thread), then, in double precision,
///
///   residual       ||A - Q R||_F / ||A||_F
///   orthogonality  ||Q^T Q - I||_F / n
///
/// each against a bound of c n u (u the unit roundoff of the factorisation's precision).
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

/// The explicit n x n Q (column-major, leading dimension n) of a factorisation left in `a`
/// (leading dimension ld) and `t` by factorize or the distributed run (with t.domains() domains,
/// qr_graph.hpp): Q = Q_00 Q_10 ... Q_11 ..., the factorisation kernels' Q in program order,
/// applied to I from the right end, each step only on the columns it can change.
template <typename T>
std::vector<T> form_q(const T* a, long ld, const TFactors<T>& t);

/// Both measures for the factorisation of `original` left in `a` and `t`. Needs about two n x n
/// double matrices besides Q.
template <typename T>
QrCheck check_qr(const GeneralMatrix& original, const T* a, long ld, const TFactors<T>& t);

/// The largest residual and orthogonality accepted for order n in precision T (why: qr_check.cpp).
template <typename T>
double residual_bound(int n);
template <typename T>
double orthogonality_bound(int n);

}  // namespace conveyor::apps::qr
