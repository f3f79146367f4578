#include "cholesky/cholesky_distributed.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_graph.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "common/blas_threads.hpp"
#include "common/distributed_runs.hpp"
#include "common/memory_check.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {
namespace {

template <typename T>
struct Tiles {
  int n, block, nt;
  bool backed = true;  // false: a simulated cluster that runs no kernels (addresses only)
  std::vector<std::unique_ptr<common::HostMatrix<T>>> own;  // this rank's tiles (ld = rows)
  std::vector<DistributedData> data;
  std::size_t size(int i) const { return static_cast<std::size_t>(std::min(block, n - i * block)); }
  DistributedData& at(int i, int j) { return data[static_cast<std::size_t>(i + j * nt)]; }
};

// Registers the lower triangle on every rank, filling this rank's tiles with A. On rank 0 with
// `full`, every tile is a view of `full` (leading dimension n), so that received and gathered
// tiles land there.
template <typename T>
void register_tiles(Distributed& dist, Tiles<T>& t, const SpdMatrix* a, ProcessGrid grid, T* full) {
  t.data.assign(static_cast<std::size_t>(t.nt) * t.nt, DistributedData());
  t.own.clear();
  for (int j = 0; j < t.nt; ++j)
    for (int i = j; i < t.nt; ++i) {
      const int owner = grid.owner(i, j);
      const std::size_t rows = t.size(i), cols = t.size(j);
      T* ptr = nullptr;
      std::size_t ld = rows;
      if (full) {
        ptr = full + static_cast<long>(i) * t.block + static_cast<long>(j) * t.block * t.n;
        ld = static_cast<std::size_t>(t.n);
      } else if (owner == dist.rank()) {
        t.own.push_back(std::make_unique<common::HostMatrix<T>>(rows * cols, t.backed));
        ptr = t.own.back()->data();
      }
      if (owner == dist.rank() && t.backed)
        for (std::size_t c = 0; c < cols; ++c)
          for (std::size_t r = 0; r < rows; ++r)
            ptr[r + c * ld] = static_cast<T>(
                (*a)(i * t.block + static_cast<int>(r), j * t.block + static_cast<int>(c)));
      t.at(i, j) = dist.register_matrix(ptr, rows, cols, ld, owner,
                                        "A[" + std::to_string(i) + "," + std::to_string(j) + "]");
    }
}

template <typename T>
void submit_graph(Distributed& dist, const CholeskyCodelets& c, Tiles<T>& t) {
  for_each_task(t.nt, [&](Kernel kernel, int i, int j, int k, int priority) {
    switch (kernel) {
      case Kernel::Potrf:
        dist.submit(c.potrf, {{t.at(k, k), Access::ReadWrite}}, priority);
        break;
      case Kernel::Trsm:
        dist.submit(c.trsm, {{t.at(k, k), Access::Read}, {t.at(i, k), Access::ReadWrite}},
                    priority);
        break;
      case Kernel::Gemm:
        dist.submit(c.gemm,
                    {{t.at(i, k), Access::Read},
                     {t.at(j, k), Access::Read},
                     {t.at(i, j), Access::ReadWrite}},
                    priority);
        break;
      case Kernel::Syrk:
        dist.submit(c.syrk, {{t.at(i, k), Access::Read}, {t.at(i, i), Access::ReadWrite}},
                    priority);
        break;
    }
  });
}

template <typename T>
DistributedResult run_typed(Distributed& dist, const DistributedConfig& cfg) {
  common::use_single_threaded_blas();
  const bool root = dist.rank() == 0;
  DistributedResult result;
  CholeskyCodelets codelets(cfg.precision);
  // Its diagonal takes O(n^2) to make: not on a simulated cluster's ranks that touch no data.
  std::optional<SpdMatrix> a;
  const RuntimeOptions& options = dist.runtime().options();
  Tiles<T> t{cfg.n,
             cfg.block,
             (cfg.n + cfg.block - 1) / cfg.block,
             options.platform.empty() || options.platform_run_kernels,
             {},
             {}};
  if (t.backed) a.emplace(cfg.n);
  result.tiles = t.nt;
  std::vector<T> full;
  if (cfg.check && root) full.resize(static_cast<std::size_t>(cfg.n) * cfg.n);

  auto unregister_all = [&] {
    for (auto& d : t.data)
      if (d.registered()) dist.unregister(d);
  };
  common::timed_runs(
      dist, cfg.repeat, cfg.progress, result,
      [&] {
        register_tiles(dist, t, a ? &*a : nullptr, cfg.grid, full.empty() ? nullptr : full.data());
      },
      [&] { submit_graph(dist, codelets, t); }, unregister_all);
  result.expected = block_cyclic_volume(cfg.n, cfg.block, cfg.grid, sizeof(T));
  result.gflops = cholesky_flops(cfg.n) / result.time_s / 1e9;
  result.residual_bound = residual_bound<T>(cfg.n);

  if (cfg.check) {
    dist.reset_stats();
    for (int j = 0; j < t.nt; ++j)
      for (int i = j; i < t.nt; ++i) dist.gather(t.at(i, j), 0);
    dist.wait_all();
    for (const auto& s : dist.all_stats()) result.gather_messages += s.messages_sent;
    double residual = root ? cholesky_residual(*a, full.data(), cfg.n) : 0.0;
    dist.broadcast(&residual, sizeof residual, 0);
    result.checked = true;
    result.residual = residual;
  }
  unregister_all();
  return result;
}

}  // namespace

DistributedResult run_distributed(Distributed& dist, const DistributedConfig& c) {
  common::validate_distributed("cholesky", dist, c.n, c.block, c.repeat, c.grid, c.check);
  return c.precision == Precision::Single ? run_typed<float>(dist, c) : run_typed<double>(dist, c);
}

}  // namespace conveyor::apps::cholesky
