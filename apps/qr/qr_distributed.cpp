#include "qr/qr_distributed.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "common/blas_threads.hpp"
#include "common/block_size.hpp"
#include "common/cache_line_vector.hpp"
#include "common/distributed_runs.hpp"
#include "common/median.hpp"
#include "common/memory_check.hpp"
#include "conveyor/error.hpp"
#include "qr/qr_graph.hpp"
#include "qr/qr_matrix.hpp"
#include "qr/tree_codelets.hpp"

namespace conveyor::apps::qr {
namespace {

template <typename T>
struct Tiles {
  int n = 0, block = 0, ib = 0, nt = 0;
  ProcessGrid grid;
  int domains = 1;     // of tile rows, for the reduction tree (qr_graph.hpp): 1 is the flat tree
  bool backed = true;  // false: a simulated cluster that runs no kernels (addresses only)
  std::vector<std::unique_ptr<common::HostMatrix<T>>> own;  // this rank's tiles (ld = rows)
  // At i + j * nt: A_ij, T_ik (i >= k), the tree's TT_ik (k < i < k + domains), the copies V_hk of
  // the domain tops' reflectors (k <= h < k + domains).
  std::vector<DistributedData> a, t, tt, v;
  std::size_t width(int i) const {
    return static_cast<std::size_t>(std::min(block, n - i * block));
  }
  std::size_t ib_of(int k) const { return std::min(static_cast<std::size_t>(ib), width(k)); }
  bool top(int i, int k) const { return is_domain_top(i, k, domains); }
  DistributedData& at(int i, int j) { return a[index(i, j)]; }
  DistributedData& factor(int i, int k) { return t[index(i, k)]; }
  DistributedData& tree_factor(int i, int k) { return tt[index(i, k)]; }
  DistributedData& reflectors(int h, int k) { return v[index(h, k)]; }
  std::size_t index(int i, int j) const { return static_cast<std::size_t>(i + j * nt); }
};

std::string label(const char* name, int i, int j) {
  return std::string(name) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

// Registers every tile of A, the T factors of the lower triangle, the tree's TT factors and the
// reflector copies V_hk on every rank, in the same order, filling this rank's tiles of A. On rank
// 0 with the check, every tile of A is a view of `full` (leading dimension n) and every T and TT
// factor one of `factors`, so that the tiles gathered at the end land where check_qr reads them.
// A factor lives with its tile of A (the kernel that writes it writes that tile too), V_hk with
// A_hk (geqrt writes both).
template <typename T>
void register_tiles(Distributed& dist, Tiles<T>& s, const GeneralMatrix& matrix, T* full,
                    TFactors<T>* factors) {
  const ProcessGrid grid = s.grid;
  const auto count = static_cast<std::size_t>(s.nt) * s.nt;
  s.a.assign(count, DistributedData());
  s.t.assign(count, DistributedData());
  s.tt.assign(count, DistributedData());
  s.v.assign(count, DistributedData());
  s.own.clear();
  auto own = [&](std::size_t elements) {
    s.own.push_back(std::make_unique<common::HostMatrix<T>>(elements, s.backed));
    return s.own.back()->data();
  };
  // A rows x cols tile owned by `owner`: a view of the check's storage on rank 0 when given (its
  // leading dimension), else this rank's own memory where it owns the tile, else none.
  auto add = [&](T* check_view, std::size_t check_ld, std::size_t rows, std::size_t cols, int owner,
                 std::string name) {
    T* ptr = check_view;
    std::size_t ld = check_view ? check_ld : rows;
    if (!check_view && owner == dist.rank()) ptr = own(rows * cols);
    return std::make_pair(dist.register_matrix(ptr, rows, cols, ld, owner, std::move(name)), ptr);
  };
  const auto factors_ld = static_cast<std::size_t>(factors ? factors->ld() : 0);
  for (int j = 0; j < s.nt; ++j)
    for (int i = 0; i < s.nt; ++i) {
      const int owner = grid.owner(i, j);
      const std::size_t rows = s.width(i), cols = s.width(j);
      T* view = full ? full + static_cast<long>(i) * s.block + static_cast<long>(j) * s.block * s.n
                     : nullptr;
      auto [data, ptr] =
          add(view, static_cast<std::size_t>(s.n), rows, cols, owner, label("A", i, j));
      const std::size_t ld = view ? static_cast<std::size_t>(s.n) : rows;
      if (owner == dist.rank() && s.backed)
        for (std::size_t c = 0; c < cols; ++c)
          for (std::size_t r = 0; r < rows; ++r)
            ptr[r + c * ld] = static_cast<T>(
                matrix(i * s.block + static_cast<int>(r), j * s.block + static_cast<int>(c)));
      s.at(i, j) = data;
    }
  for (int k = 0; k < s.nt; ++k)
    for (int i = k; i < s.nt; ++i) {
      // A domain top's T has only as many rows as its geqrt has reflectors (TFactors::rows).
      const std::size_t rows = s.top(i, k) ? std::min(s.ib_of(k), s.width(i)) : s.ib_of(k);
      s.factor(i, k) = add(factors ? factors->tile(i, k) : nullptr, factors_ld, rows, s.width(k),
                           grid.owner(i, k), label("T", i, k))
                           .first;
    }
  for (int k = 0; k < s.nt; ++k)
    for (int i = k + 1; i < s.nt && s.top(i, k); ++i)
      s.tree_factor(i, k) = add(factors ? factors->tree_tile(i, k) : nullptr, factors_ld,
                                s.ib_of(k), s.width(k), grid.owner(i, k), label("TT", i, k))
                                .first;
  for (int k = 0; k < s.nt; ++k)
    for (int h = k; h < s.nt && s.top(h, k); ++h)
      s.reflectors(h, k) =
          add(nullptr, 0, s.width(h), s.width(k), grid.owner(h, k), label("V", h, k)).first;
}

// The task flow of qr_graph.hpp. With the tree, one domain per process row: at step k each process
// row eliminates its own tiles of column k into its top tile (geqrt, then the TS kernels: the
// panel and the update chains stay on their ranks), and the tops are merged by a binary tree (the
// TT kernels), so the updates of a column cross process rows 2 (P - 1) times per step instead of
// twice per tile off the diagonal tile's process row (the flat tree, one domain). The flat tree
// pipelines better: row k + 1 is final for step k after its first update, where in the tree it
// is a domain top, final only after the merge (docs/qr.md). Every kernel has factorize()'s
// accesses in its order, so the same codelets run it. geqrt, gemqrt, tpqrt and ttqrt run where
// owner-computes puts them, on the owner of the first tile they write: A_hk's for the panel (R
// stays there while the tiles below it, on the same rank, come to it), A_hj's for gemqrt.
// tpmqrt(i, j, k) and ttmqrt(i, j, k) write A_hj and A_ij and run on A_ij's owner: every rank
// updates its own tiles of the trailing matrix at every step, as in ScaLAPACK; in a domain A_hj
// is on that rank too, and only the tree's updates move a tile (A_hj there and back).
template <typename T>
void submit_graph(Distributed& dist, const QrCodelets& c, const TreeCodelets& tree, Tiles<T>& s) {
  for_each_tree_task(s.nt, s.domains, [&](const Task& task) {
    const int i = task.i, j = task.j, k = task.k, h = task.top;
    switch (task.kernel) {
      case Kernel::Geqrt:
        dist.submit(c.geqrt,
                    {{s.at(h, k), Access::ReadWrite},
                     {s.reflectors(h, k), Access::Write},
                     {s.factor(h, k), Access::Write}},
                    task.priority);
        break;
      case Kernel::Gemqrt:
        dist.submit(c.gemqrt,
                    {{s.reflectors(h, k), Access::Read},
                     {s.factor(h, k), Access::Read},
                     {s.at(h, j), Access::ReadWrite}},
                    task.priority);
        break;
      case Kernel::Tpqrt:
      case Kernel::Ttqrt: {
        const bool ts = task.kernel == Kernel::Tpqrt;
        dist.submit(ts ? c.tpqrt : tree.ttqrt,
                    {{s.at(h, k), Access::ReadWrite},
                     {s.at(i, k), Access::ReadWrite},
                     {ts ? s.factor(i, k) : s.tree_factor(i, k), Access::Write}},
                    task.priority);
        break;
      }
      case Kernel::Tpmqrt:
      case Kernel::Ttmqrt: {
        const bool ts = task.kernel == Kernel::Tpmqrt;
        const DistributedAccess accesses[] = {
            {s.at(i, k), Access::Read},
            {ts ? s.factor(i, k) : s.tree_factor(i, k), Access::Read},
            {s.at(h, j), Access::ReadWrite},
            {s.at(i, j), Access::ReadWrite}};
        dist.submit_on(s.grid.owner(i, j), ts ? c.tpmqrt : tree.ttmqrt, accesses, task.priority);
        break;
      }
    }
  });
}

template <typename T>
DistributedResult run_typed(Distributed& dist, const DistributedConfig& cfg) {
  common::use_single_threaded_blas();
  const bool root = dist.rank() == 0;
  const RuntimeOptions& options = dist.runtime().options();
  DistributedResult result;
  QrCodelets codelets(cfg.precision);
  TreeCodelets tree(cfg.precision);
  const GeneralMatrix matrix(cfg.n);
  Tiles<T> s;
  s.n = cfg.n;
  s.block = cfg.block;
  s.ib = inner_block_for(cfg.ib, cfg.block, common::with_devices(options));
  s.nt = (cfg.n + cfg.block - 1) / cfg.block;
  s.grid = cfg.grid;
  s.domains = cfg.tree ? cfg.grid.p : 1;
  s.backed = options.platform.empty() || options.platform_run_kernels;
  result.tiles = s.nt;
  result.ib = s.ib;
  result.domains = s.domains;
  for_each_tree_task(s.nt, s.domains, [&](const Task&) { ++result.tasks; });
  std::vector<T> full;
  std::optional<TFactors<T>> factors;
  if (cfg.check && root) {
    full.resize(static_cast<std::size_t>(cfg.n) * cfg.n);
    factors.emplace(cfg.n, cfg.block, s.ib, s.domains);
  }

  // Each rank alone, on its own runtime, as `conveyor qr` warms up: the kernels' first calls and
  // the workers' start are not timed. Not on a simulated platform, where it would only move the
  // virtual clock.
  if (cfg.warmup && options.platform.empty()) {
    const int wb = std::min(cfg.block, 64), wn = 3 * wb;
    common::CacheLineVector<T> w(static_cast<std::size_t>(wn) * wn);
    GeneralMatrix(wn).fill(w.data(), wn);
    TFactors<T> wt(wn, wb, std::min(s.ib, wb));
    factorize(dist.runtime(), codelets, w.data(), wn, wn, wb, wt);
  }

  auto unregister_all = [&] {
    for (auto* set : {&s.a, &s.t, &s.tt, &s.v})
      for (auto& d : *set)
        if (d.registered()) dist.unregister(d);
  };
  common::timed_runs(
      dist, cfg.repeat, cfg.progress, result,
      [&] {
        register_tiles(dist, s, matrix, full.empty() ? nullptr : full.data(),
                       factors ? &*factors : nullptr);
      },
      [&] { submit_graph(dist, codelets, tree, s); }, unregister_all);
  result.median_time_s = common::median(result.times_s);
  result.gflops = qr_flops(cfg.n) / result.time_s / 1e9;
  result.residual_bound = residual_bound<T>(cfg.n);
  result.orthogonality_bound = orthogonality_bound<T>(cfg.n);

  if (cfg.check) {
    // R and the reflectors are in A, their triangular factors in T and TT: check_qr needs them,
    // the copies V_hk not.
    dist.reset_stats();
    for (auto* set : {&s.a, &s.t, &s.tt})
      for (auto& d : *set)
        if (d.registered()) dist.gather(d, 0);
    dist.wait_all();
    for (const auto& st : dist.all_stats()) result.gather_messages += st.messages_sent;
    QrCheck check;
    if (root) check = check_qr(matrix, full.data(), cfg.n, *factors);
    dist.broadcast(&check, sizeof check, 0);
    result.checked = true;
    result.check = check;
  }
  unregister_all();
  return result;
}

}  // namespace

DistributedResult run_distributed(Distributed& dist, const DistributedConfig& c) {
  common::validate_distributed("qr", dist, c.n, c.block, c.repeat, c.grid, c.check);
  if (c.ib < 0) throw UsageError("qr: --ib must be positive (got " + std::to_string(c.ib) + ")");
  return c.precision == Precision::Single ? run_typed<float>(dist, c) : run_typed<double>(dist, c);
}

}  // namespace conveyor::apps::qr
