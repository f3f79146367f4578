#pragma once
// The task flow of the tile Householder QR (Buttari, Langou, Kurzak, Dongarra 2009; PLASMA), in
// program order, with the priorities that keep the panel moving.
namespace conveyor::apps::qr {

enum class Kernel { Geqrt, Gemqrt, Tpqrt, Tpmqrt };

/// Calls f(kernel, i, j, k, priority) for each task of a factorisation with `nt` tiles per side,
/// in program order:
///
///   geqrt(k)          A_kk rw, V_k w, T_kk w         A_kk = Q_kk R_kk
///   gemqrt(k, j)      V_k r, T_kk r, A_kj rw         A_kj <- Q_kk^T A_kj              j > k
///   tpqrt(i, k)       A_kk rw, A_ik rw, T_ik w       [R_kk; A_ik] = Q_ik [R_kk'; 0]   i > k
///   tpmqrt(i, j, k)   A_ik r, T_ik r, A_kj rw, A_ij rw   [A_kj; A_ij] <- Q_ik^T [..]  i, j > k
///
/// (unused indices are passed as k). V_k is a copy of geqrt's reflectors, so that gemqrt reads the
/// copy while tpqrt rewrites R in the upper triangle of A_kk: on the tile itself the runtime would
/// see a write after read and hold the whole tpqrt chain of column k until every gemqrt of row k
/// had run, although the two touch different triangles.
///
/// A task's priority is 4 (nt - c) + {geqrt 3, tpqrt 2, gemqrt 1, tpmqrt 0}, c the column of the
/// tile it writes, as Cholesky's: the column that becomes the panel soonest goes first, so the
/// chain geqrt -> tpqrt ... -> tpmqrt of column k+1 -> geqrt is not starved by later columns.
template <typename F>
void for_each_task(int nt, F&& f) {
  auto priority = [&](int column, int kind_bonus) { return 4 * (nt - column) + kind_bonus; };
  for (int k = 0; k < nt; ++k) {
    f(Kernel::Geqrt, k, k, k, priority(k, 3));
    for (int j = k + 1; j < nt; ++j) f(Kernel::Gemqrt, k, j, k, priority(j, 1));
    for (int i = k + 1; i < nt; ++i) {
      f(Kernel::Tpqrt, i, k, k, priority(k, 2));
      for (int j = k + 1; j < nt; ++j) f(Kernel::Tpmqrt, i, j, k, priority(j, 0));
    }
  }
}

}  // namespace conveyor::apps::qr
