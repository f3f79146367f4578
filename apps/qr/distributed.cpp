#include "qr/distributed.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "common/blas_threads.hpp"
#include "common/distributed_runs.hpp"
#include "common/host_memory.hpp"
#include "common/median.hpp"
#include "conveyor/error.hpp"
#include "qr/graph.hpp"
#include "qr/matrix.hpp"

namespace conveyor::apps::qr {
namespace {

template <typename T>
struct Tiles {
  int n, block, ib, nt;
  ProcessGrid grid;
  bool backed = true;  // false: a simulated cluster that runs no kernels (addresses only)
  std::vector<std::unique_ptr<common::HostMatrix<T>>> own;  // this rank's tiles (ld = rows)
  std::vector<DistributedData> a, t, v;                     // A_ij and T_ik at i + j * nt, V_k at k
  std::size_t width(int i) const {
    return static_cast<std::size_t>(std::min(block, n - i * block));
  }
  std::size_t ib_of(int k) const { return std::min(static_cast<std::size_t>(ib), width(k)); }
  DistributedData& at(int i, int j) { return a[static_cast<std::size_t>(i + j * nt)]; }
  DistributedData& factor(int i, int k) { return t[static_cast<std::size_t>(i + k * nt)]; }
  DistributedData& reflectors(int k) { return v[static_cast<std::size_t>(k)]; }
};

std::string label(const char* name, int i, int j) {
  return std::string(name) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

// Registers every tile of A, the T factors of the lower triangle and the reflector copies V_k on
// every rank, in the same order, filling this rank's tiles of A. On rank 0 with the check, every
// tile of A is a view of `full` (leading dimension n) and every T factor one of `factors`, so that
// the tiles gathered at the end land where check_qr reads them.
template <typename T>
void register_tiles(Distributed& dist, Tiles<T>& s, const GeneralMatrix& matrix, T* full,
                    TFactors<T>* factors) {
  const ProcessGrid grid = s.grid;
  const auto count = static_cast<std::size_t>(s.nt) * s.nt;
  s.a.assign(count, DistributedData());
  s.t.assign(count, DistributedData());
  s.v.assign(static_cast<std::size_t>(s.nt), DistributedData());
  s.own.clear();
  auto own = [&](std::size_t elements) {
    s.own.push_back(std::make_unique<common::HostMatrix<T>>(elements, s.backed));
    return s.own.back()->data();
  };
  for (int j = 0; j < s.nt; ++j)
    for (int i = 0; i < s.nt; ++i) {
      const int owner = grid.owner(i, j);
      const std::size_t rows = s.width(i), cols = s.width(j);
      T* ptr = nullptr;
      std::size_t ld = rows;
      if (full) {
        ptr = full + static_cast<long>(i) * s.block + static_cast<long>(j) * s.block * s.n;
        ld = static_cast<std::size_t>(s.n);
      } else if (owner == dist.rank()) {
        ptr = own(rows * cols);
      }
      if (owner == dist.rank() && s.backed)
        for (std::size_t c = 0; c < cols; ++c)
          for (std::size_t r = 0; r < rows; ++r)
            ptr[r + c * ld] = static_cast<T>(
                matrix(i * s.block + static_cast<int>(r), j * s.block + static_cast<int>(c)));
      s.at(i, j) = dist.register_matrix(ptr, rows, cols, ld, owner, label("A", i, j));
    }
  for (int k = 0; k < s.nt; ++k)
    for (int i = k; i < s.nt; ++i) {
      const int owner = grid.owner(i, k);  // with A_ik, which tpqrt(i, k) writes too
      const std::size_t rows = s.ib_of(k), cols = s.width(k);
      T* ptr = nullptr;
      std::size_t ld = rows;
      if (factors) {
        ptr = factors->tile(i, k);
        ld = static_cast<std::size_t>(factors->ld());
      } else if (owner == dist.rank()) {
        ptr = own(rows * cols);
      }
      s.factor(i, k) = dist.register_matrix(ptr, rows, cols, ld, owner, label("T", i, k));
    }
  for (int k = 0; k < s.nt; ++k) {
    const int owner = grid.owner(k, k);  // with A_kk: geqrt writes both
    const std::size_t w = s.width(k);
    T* ptr = owner == dist.rank() ? own(w * w) : nullptr;
    s.reflectors(k) = dist.register_matrix(ptr, w, w, w, owner, label("V", k, k));
  }
}

// factorize()'s flow (graph.hpp) with the same accesses in the same order, so that the same
// codelets run it. geqrt(k), gemqrt(k, j) and tpqrt(i, k) run where owner-computes puts them, on
// the owner of their first written tile: A_kk's for the panel (R_kk stays there while the tiles
// below it come to it, each ready long before its turn, and go home with their T factor after),
// A_kj's for gemqrt. tpmqrt(i, j, k) writes A_kj and A_ij and runs on A_ij's owner: every rank
// updates its own tiles of the trailing matrix at every step, as in ScaLAPACK, and only the row k
// tile that the updates of column j chain through travels (from its owner to the rank of each
// update and back). On A_kj's owner instead, the whole update of step k would run on process row
// k mod P, with the same number of messages (docs/qr.md, "On several ranks").
template <typename T>
void submit_graph(Distributed& dist, const QrCodelets& c, Tiles<T>& s) {
  for_each_task(s.nt, [&](Kernel kernel, int i, int j, int k, int priority) {
    switch (kernel) {
      case Kernel::Geqrt:
        dist.submit(c.geqrt,
                    {{s.at(k, k), Access::ReadWrite},
                     {s.reflectors(k), Access::Write},
                     {s.factor(k, k), Access::Write}},
                    priority);
        break;
      case Kernel::Gemqrt:
        dist.submit(c.gemqrt,
                    {{s.reflectors(k), Access::Read},
                     {s.factor(k, k), Access::Read},
                     {s.at(k, j), Access::ReadWrite}},
                    priority);
        break;
      case Kernel::Tpqrt:
        dist.submit(c.tpqrt,
                    {{s.at(k, k), Access::ReadWrite},
                     {s.at(i, k), Access::ReadWrite},
                     {s.factor(i, k), Access::Write}},
                    priority);
        break;
      case Kernel::Tpmqrt: {
        const DistributedAccess accesses[] = {{s.at(i, k), Access::Read},
                                              {s.factor(i, k), Access::Read},
                                              {s.at(k, j), Access::ReadWrite},
                                              {s.at(i, j), Access::ReadWrite}};
        dist.submit_on(s.grid.owner(i, j), c.tpmqrt, accesses, priority);
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
  const GeneralMatrix matrix(cfg.n);
  Tiles<T> s{cfg.n,
             cfg.block,
             std::min(cfg.ib, cfg.block),
             (cfg.n + cfg.block - 1) / cfg.block,
             cfg.grid,
             options.platform.empty() || options.platform_run_kernels,
             {},
             {},
             {},
             {}};
  result.tiles = s.nt;
  result.ib = s.ib;
  std::vector<T> full;
  std::optional<TFactors<T>> factors;
  if (cfg.check && root) {
    full.resize(static_cast<std::size_t>(cfg.n) * cfg.n);
    factors.emplace(cfg.n, cfg.block, s.ib);
  }

  // Each rank alone, on its own runtime, as `conveyor qr` warms up: the kernels' first calls and
  // the workers' start are not timed. Not on a simulated platform, where it would only move the
  // virtual clock.
  if (cfg.warmup && options.platform.empty()) {
    const int wb = std::min(cfg.block, 64), wn = 3 * wb;
    std::vector<T> w(static_cast<std::size_t>(wn) * wn);
    GeneralMatrix(wn).fill(w.data(), wn);
    TFactors<T> wt(wn, wb, std::min(s.ib, wb));
    factorize(dist.runtime(), codelets, w.data(), wn, wn, wb, wt);
  }

  auto unregister_all = [&] {
    for (auto* set : {&s.a, &s.t, &s.v})
      for (auto& d : *set)
        if (d.registered()) dist.unregister(d);
  };
  common::timed_runs(
      dist, cfg.repeat, result,
      [&] {
        register_tiles(dist, s, matrix, full.empty() ? nullptr : full.data(),
                       factors ? &*factors : nullptr);
      },
      [&] { submit_graph(dist, codelets, s); }, unregister_all);
  result.median_time_s = common::median(result.times_s);
  result.gflops = qr_flops(cfg.n) / result.time_s / 1e9;
  result.residual_bound = residual_bound<T>(cfg.n);
  result.orthogonality_bound = orthogonality_bound<T>(cfg.n);

  if (cfg.check) {
    // R and the reflectors are in A, their triangular factors in T: check_qr needs both, V_k
    // (a copy of A_kk's reflectors) not.
    dist.reset_stats();
    for (auto* set : {&s.a, &s.t})
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
  if (c.ib <= 0) throw UsageError("qr: --ib must be positive (got " + std::to_string(c.ib) + ")");
  return c.precision == Precision::Single ? run_typed<float>(dist, c) : run_typed<double>(dist, c);
}

}  // namespace conveyor::apps::qr
