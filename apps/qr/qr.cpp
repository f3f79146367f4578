#include "qr/qr.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/memory_check.hpp"
#include "common/narrow.hpp"
#include "conveyor/error.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_device_codelets.hpp"
#include "qr/qr_graph.hpp"
#include "qr/tree_codelets.hpp"

namespace conveyor::apps::qr {
namespace {

using common::as_double;
using common::as_int;

// Buffers arrive in the order of the task's accesses (qr_graph.hpp). Every dimension comes from the
// buffers: a T tile has ib rows, so ragged tiles and a narrower ib in the last column need nothing
// extra.
template <typename T>
void add_implementations(QrCodelets& c) {
  c.geqrt.cpu([](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &v = t.buffer(1), &f = t.buffer(2);
    T* tile = t.data<T>(0);
    cpu_geqrt<T>(as_int(a.rows), as_int(a.cols), as_int(f.rows), tile, as_int(a.ld), t.data<T>(2),
                 as_int(f.ld));
    // The copy that gemqrt reads (qr_graph.hpp says why); the upper triangle goes along, unread.
    T* copy = t.data<T>(1);
    for (std::size_t col = 0; col < a.cols; ++col)
      std::copy_n(tile + col * a.ld, a.rows, copy + col * v.ld);
  });
  c.gemqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &c = t.buffer(2);
    cpu_gemqrt<T>(true, as_int(c.rows), as_int(c.cols), as_int(std::min(v.rows, v.cols)),
                  as_int(f.rows), t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld),
                  t.data<T>(2), as_int(c.ld));
  });
  c.tpqrt.cpu([](const TaskContext& t) {
    const Buffer &r = t.buffer(0), &b = t.buffer(1), &f = t.buffer(2);
    cpu_tpqrt<T>(as_int(b.rows), as_int(b.cols), as_int(f.rows), t.data<T>(0), as_int(r.ld),
                 t.data<T>(1), as_int(b.ld), t.data<T>(2), as_int(f.ld));
  });
  c.tpmqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &a = t.buffer(2), &b = t.buffer(3);
    cpu_tpmqrt<T>(true, as_int(b.rows), as_int(b.cols), as_int(v.cols), as_int(f.rows),
                  t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld), t.data<T>(2),
                  as_int(a.ld), t.data<T>(3), as_int(b.ld));
  });
}

// Work per task, LAPACK's counts to leading order (square b x b tiles: geqrt 4/3 b^3, gemqrt and
// tpqrt 2 b^3, tpmqrt 4 b^3), for the model scheduler's prior and its time per flop.
double geqrt_flops(const TaskContext& t) {
  double m = as_double(t.buffer(0).rows), n = as_double(t.buffer(0).cols);
  return 2 * m * n * n - 2 * n * n * n / 3;
}
double gemqrt_flops(const TaskContext& t) {
  const Buffer &v = t.buffer(0), &c = t.buffer(2);
  double k = as_double(std::min(v.rows, v.cols));
  return 4 * as_double(c.rows) * as_double(c.cols) * k - 2 * as_double(c.cols) * k * k;
}
double tpqrt_flops(const TaskContext& t) {
  double m = as_double(t.buffer(1).rows), n = as_double(t.buffer(1).cols);
  return 2 * m * n * n;
}
double tpmqrt_flops(const TaskContext& t) {
  const Buffer &v = t.buffer(0), &b = t.buffer(3);
  return 4 * as_double(b.rows) * as_double(b.cols) * as_double(v.cols);
}

}  // namespace

QrCodelets::QrCodelets(Precision p)
    : precision(p), geqrt("geqrt"), gemqrt("gemqrt"), tpqrt("tpqrt"), tpmqrt("tpmqrt") {
  if (p == Precision::Single)
    add_implementations<float>(*this);
  else
    add_implementations<double>(*this);
  add_device_implementations(*this);
  geqrt.flops(geqrt_flops);
  gemqrt.flops(gemqrt_flops);
  tpqrt.flops(tpqrt_flops);
  tpmqrt.flops(tpmqrt_flops);
}

TaskCounts task_counts(int row_tiles, int col_tiles) {
  const auto mt = static_cast<std::uint64_t>(std::max(row_tiles, 0));
  const auto nt = static_cast<std::uint64_t>(std::clamp(col_tiles, 0, row_tiles));
  TaskCounts c{nt, nt * (nt - (nt > 0)) / 2, 0, 0};
  for (std::uint64_t k = 0; k < nt; ++k) {  // step k: rows k+1 .. mt-1 below, columns k+1 .. nt-1
    c.tpqrt += mt - 1 - k;
    c.tpmqrt += (mt - 1 - k) * (nt - 1 - k);
  }
  return c;
}
TaskCounts task_counts(int tiles) { return task_counts(tiles, tiles); }

template <typename T>
Factorization factorize(Runtime& rt, const QrCodelets& codelets, T* a, int n, long ld, int block,
                        TFactors<T>& t, bool backed, const MatrixHome& home) {
  if (n <= 0) throw UsageError("qr: --n must be positive (got " + std::to_string(n) + ")");
  if (block <= 0)
    throw UsageError("qr: --block must be positive (got " + std::to_string(block) + ")");
  if (t.m() != n || t.n() != n || t.block() != block)
    throw UsageError("qr: the T factors were made for another matrix order or tile size");
  return factorize(rt, codelets, a, ld, t, backed, home);
}

template <typename T>
Factorization factorize(Runtime& rt, const QrCodelets& codelets, T* a, long ld, TFactors<T>& t,
                        bool backed, const MatrixHome& home) {
  constexpr Precision kPrecision = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
  if (codelets.precision != kPrecision)
    throw UsageError("qr: codelets built for " + std::string(to_string(codelets.precision)) +
                     " precision, matrix is " + std::string(to_string(kPrecision)));
  if (t.n() <= 0 || t.m() < t.n())
    throw UsageError("qr: the matrix must have at least as many rows as columns (got " +
                     std::to_string(t.m()) + " x " + std::to_string(t.n()) + ")");
  if (ld < t.m()) throw UsageError("qr: leading dimension below the number of rows");
  common::check_home(rt, home, "qr");

  const int mt = t.row_tiles(), nt = t.tiles(), domains = t.domains();
  auto width = [&](int j) { return static_cast<std::size_t>(t.width(j)); };
  auto height = [&](int i) { return static_cast<std::size_t>(t.height(i)); };
  auto label = [](const char* name, int i, int j) {
    return std::string(name) + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
  };
  // Every tile of A (QR updates the whole matrix), the T tiles on and below the diagonal, with
  // several domains the tree's TT tiles, and the copies of the domain tops' reflectors (V_hk, the
  // diagonal tiles' alone in the flat tree), each registered as its own matrix, indexed i + j mt.
  const std::size_t count = static_cast<std::size_t>(mt) * nt;
  std::vector<Data> tiles(count), factors(count), tree_factors(count), reflectors(count);
  std::vector<std::unique_ptr<common::HostMatrix<T>>> reflector_storage(count);
  auto at = [&](std::vector<Data>& set, int i, int j) -> Data& {
    return set[static_cast<std::size_t>(i + j * mt)];
  };
  Factorization f;
  f.tiles = nt;
  f.row_tiles = mt;
  f.domains = domains;
  const long block = t.block();
  std::optional<TreeCodelets> tree;
  if (domains > 1) tree.emplace(codelets.precision);
  double start = 0;
  try {
    for (int j = 0; j < nt; ++j)
      for (int i = 0; i < mt; ++i)
        at(tiles, i, j) =
            common::register_tile(rt, home, a + i * block + j * block * ld, height(i), width(j),
                                  static_cast<std::size_t>(ld), label("A", i, j));
    for (int k = 0; k < nt; ++k)
      for (int i = k; i < mt; ++i) {
        at(factors, i, k) =
            rt.register_matrix(t.tile(i, k), static_cast<std::size_t>(t.rows(i, k)), width(k),
                               static_cast<std::size_t>(t.ld()), label("T", i, k));
        if (!is_domain_top(i, k, domains)) continue;
        if (i > k)
          at(tree_factors, i, k) =
              rt.register_matrix(t.tree_tile(i, k), static_cast<std::size_t>(t.ib(k)), width(k),
                                 static_cast<std::size_t>(t.ld()), label("TT", i, k));
        // A top may be taller than wide (the last tile column of a tall matrix).
        auto& v = reflector_storage[static_cast<std::size_t>(i + k * mt)];
        v = std::make_unique<common::HostMatrix<T>>(height(i) * width(k), backed);
        at(reflectors, i, k) =
            rt.register_matrix(v->data(), height(i), width(k), height(i), label("V", i, k));
      }
    rt.reset_stats();
    start = rt.seconds();
    for_each_tree_task(mt, nt, domains, [&](const Task& task) {
      const int i = task.i, j = task.j, k = task.k, h = task.top;
      switch (task.kernel) {
        case Kernel::Geqrt:
          rt.submit(codelets.geqrt,
                    {{at(tiles, h, k), Access::ReadWrite},
                     {at(reflectors, h, k), Access::Write},
                     {at(factors, h, k), Access::Write}},
                    task.priority);
          ++f.geqrt_tasks;
          break;
        case Kernel::Gemqrt:
          rt.submit(codelets.gemqrt,
                    {{at(reflectors, h, k), Access::Read},
                     {at(factors, h, k), Access::Read},
                     {at(tiles, h, j), Access::ReadWrite}},
                    task.priority);
          ++f.gemqrt_tasks;
          break;
        case Kernel::Tpqrt:
        case Kernel::Ttqrt: {
          const bool ts = task.kernel == Kernel::Tpqrt;
          rt.submit(ts ? codelets.tpqrt : tree->ttqrt,
                    {{at(tiles, h, k), Access::ReadWrite},
                     {at(tiles, i, k), Access::ReadWrite},
                     {at(ts ? factors : tree_factors, i, k), Access::Write}},
                    task.priority);
          ++(ts ? f.tpqrt_tasks : f.ttqrt_tasks);
          break;
        }
        case Kernel::Tpmqrt:
        case Kernel::Ttmqrt: {
          const bool ts = task.kernel == Kernel::Tpmqrt;
          rt.submit(ts ? codelets.tpmqrt : tree->ttmqrt,
                    {{at(tiles, i, k), Access::Read},
                     {at(ts ? factors : tree_factors, i, k), Access::Read},
                     {at(tiles, h, j), Access::ReadWrite},
                     {at(tiles, i, j), Access::ReadWrite}},
                    task.priority);
          ++(ts ? f.tpmqrt_tasks : f.ttmqrt_tasks);
          break;
        }
      }
    });
    rt.wait_all();
  } catch (...) {
    // No registration may outlive this call: the caller may free the matrix next.
    common::unregister_all(rt, {&tiles, &factors, &tree_factors, &reflectors}, /*quiet=*/true);
    throw;
  }
  f.time_s = rt.seconds() - start;
  common::unregister_all(rt, {&tiles, &factors, &tree_factors, &reflectors}, /*quiet=*/false);
  f.stats = rt.stats();  // after unregister, so that any final write-back is counted too
  return f;
}

template Factorization factorize<float>(Runtime&, const QrCodelets&, float*, int, long, int,
                                        TFactors<float>&, bool, const MatrixHome&);
template Factorization factorize<double>(Runtime&, const QrCodelets&, double*, int, long, int,
                                         TFactors<double>&, bool, const MatrixHome&);
template Factorization factorize<float>(Runtime&, const QrCodelets&, float*, long, TFactors<float>&,
                                        bool, const MatrixHome&);
template Factorization factorize<double>(Runtime&, const QrCodelets&, double*, long,
                                         TFactors<double>&, bool, const MatrixHome&);

}  // namespace conveyor::apps::qr
