#pragma once
// The task flow of the tiled right-looking Cholesky factorisation, once, for every way of
// submitting it (one runtime, or every rank of a distributed run: they must submit the very same
// sequence).
namespace conveyor::apps::cholesky {

enum class Kernel { Potrf, Trsm, Syrk, Gemm };

/// Calls f(kernel, i, j, k, priority) for each task of a factorisation with `nt` tiles per side,
/// in program order. Tiles used: potrf A_kk rw; trsm A_kk r, A_ik rw; gemm A_ik r, A_jk r, A_ij rw;
/// syrk A_ik r, A_ii rw (unused indices are passed as k).
///
/// Priorities favour the critical path: a task's output tile is needed sooner when its column
/// becomes the panel sooner; within one column potrf > trsm > syrk > gemm.
template <typename F>
void for_each_task(int nt, F&& f) {
  auto priority = [&](int column, int kind_bonus) { return 4 * (nt - column) + kind_bonus; };
  for (int k = 0; k < nt; ++k) {
    f(Kernel::Potrf, k, k, k, priority(k, 3));
    for (int i = k + 1; i < nt; ++i) f(Kernel::Trsm, i, k, k, priority(k, 2));
    for (int i = k + 1; i < nt; ++i) {
      for (int j = k + 1; j < i; ++j) f(Kernel::Gemm, i, j, k, priority(j, 0));
      f(Kernel::Syrk, i, i, k, priority(i, 1));
    }
  }
}

}  // namespace conveyor::apps::cholesky
