#pragma once
// The task flow of the tile Householder QR (Buttari, Langou, Kurzak, Dongarra 2009; PLASMA), in
// program order, with the priorities that keep the panel moving; with a reduction tree across
// domains of tile rows (Hadri et al.'s and DPLASMA's hierarchical QR) for runs over several
// process rows.
#include <utility>
#include <vector>

namespace conveyor::apps::qr {

enum class Kernel { Geqrt, Gemqrt, Tpqrt, Tpmqrt, Ttqrt, Ttmqrt };

/// One task: its kernel, the tiles it names (unused indices are k), the top of its domain (the
/// tile row that the domain's panel tiles are eliminated into; k in the flat tree) and a priority.
struct Task {
  Kernel kernel;
  int i, j, k;
  int top;
  int priority;
};

/// Calls f(const Task&) for each task of a factorisation of `mt` x `nt` tiles (mt >= nt: as many
/// tile rows as columns or more) whose tile rows are cut into `domains` domains, row i in domain i
/// mod domains (on a P x Q process grid, one domain per process row: each domain's rows live on one
/// process row). At step k the domain tops are rows k .. k + domains - 1 (those below mt), and the
/// step is
///
///   for each top h:
///     geqrt(h, k)        A_hk rw, V_hk w, T_hk w            A_hk = Q_hk R_hk
///     gemqrt(h, j, k)    V_hk r, T_hk r, A_hj rw             A_hj <- Q_hk^T A_hj         j > k
///     for each other row i of h's domain, i > h:
///       tpqrt(i, k)      A_hk rw, A_ik rw, T_ik w            [R_hk; A_ik] = Q_ik [R'; 0]
///       tpmqrt(i, j, k)  A_ik r, T_ik r, A_hj rw, A_ij rw    [A_hj; A_ij] <- Q_ik^T [..]
///   for s = 1, 2, 4, .. < domains, for tops h = k + m (m a multiple of 2s) and i = h + s < mt:
///     ttqrt(i, k)        A_hk rw, A_ik rw, TT_ik w           [R_hk; R_ik] = Q [R'; 0]
///     ttmqrt(i, j, k)    A_ik r, TT_ik r, A_hj rw, A_ij rw   [A_hj; A_ij] <- Q^T [..]
///
/// (Task::top is h). The TS kernels (tpqrt/tpmqrt) eliminate a full tile, the TT kernels (the
/// same LAPACK routines with a triangular lower tile) the R of another domain's top, whose
/// reflectors fill its upper triangle while geqrt's stay below it. With one domain this is the
/// flat tree: geqrt(k), gemqrt(k, j), then tpqrt/tpmqrt for every row below k. V_hk is a copy of
/// geqrt's reflectors, so that gemqrt reads the copy while tpqrt rewrites R in the upper triangle
/// of A_hk: on the tile itself the runtime would see a write after read and hold the whole tpqrt
/// chain until every gemqrt of the row had run, although the two touch different triangles.
///
/// Whether row i is a domain top at step k (k <= i < k + domains): a row that geqrt factorises,
/// whose T has min(ib, its reflectors) rows and whose reflector copy V_ik exists.
inline bool is_domain_top(int i, int k, int domains) { return i >= k && i - k < domains; }

/// A task's priority is 4 (nt - c) + {geqrt 3, tpqrt and ttqrt 2, gemqrt 1, tpmqrt and ttmqrt 0},
/// c the column of the tile it writes, as Cholesky's: the column that becomes the panel soonest
/// goes first, so the chain geqrt -> tpqrt ... -> tpmqrt of column k+1 -> geqrt is not starved by
/// later columns.
template <typename F>
void for_each_tree_task(int mt, int nt, int domains, F&& f) {
  auto priority = [&](int column, int kind_bonus) { return 4 * (nt - column) + kind_bonus; };
  for (int k = 0; k < nt; ++k) {
    for (int h = k; h < mt && is_domain_top(h, k, domains); ++h) {
      f(Task{Kernel::Geqrt, h, k, k, h, priority(k, 3)});
      for (int j = k + 1; j < nt; ++j) f(Task{Kernel::Gemqrt, h, j, k, h, priority(j, 1)});
      for (int i = h + domains; i < mt; i += domains) {
        f(Task{Kernel::Tpqrt, i, k, k, h, priority(k, 2)});
        for (int j = k + 1; j < nt; ++j) f(Task{Kernel::Tpmqrt, i, j, k, h, priority(j, 0)});
      }
    }
    for (int s = 1; s < domains; s *= 2)
      for (int h = k; h + s < k + domains && h + s < mt; h += 2 * s) {
        const int i = h + s;
        f(Task{Kernel::Ttqrt, i, k, k, h, priority(k, 2)});
        for (int j = k + 1; j < nt; ++j) f(Task{Kernel::Ttmqrt, i, j, k, h, priority(j, 0)});
      }
  }
}

/// The tasks that make reflectors (geqrt, tpqrt, ttqrt), in program order: what Q is made of (the
/// updates belong to R).
inline std::vector<Task> reflector_tasks(int mt, int nt, int domains) {
  std::vector<Task> tasks;
  for_each_tree_task(mt, nt, domains, [&](const Task& task) {
    if (task.kernel == Kernel::Geqrt || task.kernel == Kernel::Tpqrt ||
        task.kernel == Kernel::Ttqrt)
      tasks.push_back(task);
  });
  return tasks;
}

/// A square matrix of `nt` tiles per side.
template <typename F>
void for_each_tree_task(int nt, int domains, F&& f) {
  for_each_tree_task(nt, nt, domains, std::forward<F>(f));
}

/// The flat tree (one domain) of `mt` x `nt` tiles as f(kernel, i, j, k, priority): geqrt(k),
/// gemqrt(k, j), tpqrt(i, k) and tpmqrt(i, j, k) for every row i > k; no TT kernels.
template <typename F>
void for_each_task(int mt, int nt, F&& f) {
  for_each_tree_task(mt, nt, 1, [&](const Task& t) { f(t.kernel, t.i, t.j, t.k, t.priority); });
}
template <typename F>
void for_each_task(int nt, F&& f) {
  for_each_task(nt, nt, std::forward<F>(f));
}

}  // namespace conveyor::apps::qr
