#include "cholesky/cholesky.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <type_traits>

#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_graph.hpp"
#include "cholesky/cuda/cholesky_cuda_kernels.hpp"
#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/narrow.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"

namespace conveyor::apps::cholesky {

bool is_codelet_name(std::string_view name) {
  return std::find(std::begin(kCodeletNames), std::end(kCodeletNames), name) !=
         std::end(kCodeletNames);
}

namespace {

using common::as_int;

// Buffers arrive in the order of the task's accesses (see factorize). Dimensions come from the
// buffers themselves, so ragged edge tiles need no extra arguments; ld is the matrix's on the CPU
// and the tile's own height on devices.
template <typename T>
void add_implementations(CholeskyCodelets& c) {
  c.potrf.cpu([](const TaskContext& t) {
    const Buffer& a = t.buffer(0);
    cpu_potrf<T>(as_int(a.rows), t.data<T>(0), as_int(a.ld));
  });
  c.trsm.cpu([](const TaskContext& t) {
    const Buffer &l = t.buffer(0), &b = t.buffer(1);
    cpu_trsm<T>(as_int(b.rows), as_int(b.cols), t.data<T>(0), as_int(l.ld), t.data<T>(1),
                as_int(b.ld));
  });
  c.syrk.cpu([](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &s = t.buffer(1);
    cpu_syrk<T>(as_int(s.rows), as_int(a.cols), t.data<T>(0), as_int(a.ld), t.data<T>(1),
                as_int(s.ld));
  });
  c.gemm.cpu([](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &b = t.buffer(1), &g = t.buffer(2);
    cpu_gemm<T>(as_int(g.rows), as_int(g.cols), as_int(a.cols), t.data<T>(0), as_int(a.ld),
                t.data<T>(1), as_int(b.ld), t.data<T>(2), as_int(g.ld));
  });

  // Work per task, so that the model scheduler has a prior before it has measured anything, and a
  // time per flop to carry measurements over to tile sizes it has not seen (the warm-up's small
  // tiles to the run's).
  c.potrf.flops([](const TaskContext& t) {
    double n = static_cast<double>(t.buffer(0).rows);
    return n * n * n / 3.0;
  });
  c.trsm.flops([](const TaskContext& t) {
    double m = static_cast<double>(t.buffer(1).rows), n = static_cast<double>(t.buffer(1).cols);
    return m * n * n;
  });
  c.syrk.flops([](const TaskContext& t) {
    double n = static_cast<double>(t.buffer(1).rows), k = static_cast<double>(t.buffer(0).cols);
    return n * n * k;
  });
  c.gemm.flops([](const TaskContext& t) {
    const Buffer &a = t.buffer(0), &g = t.buffer(2);
    return 2.0 * static_cast<double>(g.rows) * static_cast<double>(g.cols) *
           static_cast<double>(a.cols);
  });

  if (cuda_kernels_available()) {
    c.potrf.cuda([](const TaskContext& t) {
      const Buffer& a = t.buffer(0);
      cuda_potrf<T>(t.cuda_stream(), as_int(a.rows), t.data<T>(0), as_int(a.ld));
    });
    c.trsm.cuda([](const TaskContext& t) {
      const Buffer &l = t.buffer(0), &b = t.buffer(1);
      cuda_trsm<T>(t.cuda_stream(), as_int(b.rows), as_int(b.cols), t.data<T>(0), as_int(l.ld),
                   t.data<T>(1), as_int(b.ld));
    });
    c.syrk.cuda([](const TaskContext& t) {
      const Buffer &a = t.buffer(0), &s = t.buffer(1);
      cuda_syrk<T>(t.cuda_stream(), as_int(s.rows), as_int(a.cols), t.data<T>(0), as_int(a.ld),
                   t.data<T>(1), as_int(s.ld));
    });
    c.gemm.cuda([](const TaskContext& t) {
      const Buffer &a = t.buffer(0), &b = t.buffer(1), &g = t.buffer(2);
      cuda_gemm<T>(t.cuda_stream(), as_int(g.rows), as_int(g.cols), as_int(a.cols), t.data<T>(0),
                   as_int(a.ld), t.data<T>(1), as_int(b.ld), t.data<T>(2), as_int(g.ld));
    });
  }

  if (opencl_kernels_available()) {
    common::opencl_blas();  // a bad CONVEYOR_OPENCL_BLAS fails here, before any task runs
    // One program, each codelet naming its kernel (the launchers may go through CLBlast instead).
    auto program = [](const char* kernel) {
      OpenclProgram p;
      p.source = std::string(opencl_gemm_source());
      p.kernel = kernel;
      p.options = opencl_gemm_options(std::is_same_v<T, double>);
      return p;
    };
    c.trsm.opencl(program(kOpenclTrsmKernel), [](const TaskContext& t) {
      const Buffer &l = t.buffer(0), &b = t.buffer(1);
      opencl_trsm_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), as_int(b.rows),
                          as_int(b.cols), t.opencl_mem(0), as_int(l.ld), t.opencl_mem(1),
                          as_int(b.ld));
    });
    c.syrk.opencl(program(kOpenclSyrkKernel), [](const TaskContext& t) {
      const Buffer &a = t.buffer(0), &s = t.buffer(1);
      opencl_syrk_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), as_int(s.rows),
                          as_int(a.cols), t.opencl_mem(0), as_int(a.ld), t.opencl_mem(1),
                          as_int(s.ld));
    });
    c.gemm.opencl(program(kOpenclGemmKernel), [](const TaskContext& t) {
      const Buffer &a = t.buffer(0), &b = t.buffer(1), &g = t.buffer(2);
      opencl_gemm_enqueue(t.opencl_queue(), t.opencl_kernel(), sizeof(T), as_int(g.rows),
                          as_int(g.cols), as_int(a.cols), t.opencl_mem(0), as_int(a.ld),
                          t.opencl_mem(1), as_int(b.ld), t.opencl_mem(2), as_int(g.ld));
    });
  }
}

}  // namespace

double potrf_flops(const TaskContext& t) {
  double n = static_cast<double>(t.buffer(0).rows);
  return n * n * n / 3.0;
}
double trsm_flops(const TaskContext& t) {
  const Buffer& b = t.buffer(1);
  return static_cast<double>(b.rows) * static_cast<double>(b.cols) * static_cast<double>(b.cols);
}
double syrk_flops(const TaskContext& t) {
  double n = static_cast<double>(t.buffer(1).rows);
  return n * n * static_cast<double>(t.buffer(0).cols);
}
double gemm_flops(const TaskContext& t) {
  const Buffer &a = t.buffer(0), &g = t.buffer(2);
  return 2.0 * static_cast<double>(g.rows) * static_cast<double>(g.cols) *
         static_cast<double>(a.cols);
}

CholeskyCodelets::CholeskyCodelets(Precision p, bool simulated)
    : precision(p), potrf("potrf"), trsm("trsm"), syrk("syrk"), gemm("gemm") {
  if (p == Precision::Single)
    add_implementations<float>(*this);
  else
    add_implementations<double>(*this);
  potrf.flops(potrf_flops);
  trsm.flops(trsm_flops);
  syrk.flops(syrk_flops);
  gemm.flops(gemm_flops);
  if (simulated && !cuda_kernels_available())
    for (Codelet* c : {&potrf, &trsm, &syrk, &gemm})
      c->cuda([](const TaskContext&) {
        throw Error("cholesky: this build has no CUDA kernels (only simulated devices take them)");
      });
}

const Codelet* CholeskyCodelets::find(std::string_view name) const {
  for (const Codelet* c : {&potrf, &trsm, &syrk, &gemm})
    if (c->name() == name) return c;
  return nullptr;
}

TaskCounts task_counts(int tiles) {
  auto t = static_cast<std::uint64_t>(std::max(tiles, 0));
  std::uint64_t pairs = t * (t - (t > 0)) / 2;
  std::uint64_t triples = t >= 3 ? t * (t - 1) * (t - 2) / 6 : 0;
  return {t, pairs, pairs, triples};
}

namespace {

// Submits the whole graph in program order, counting the tasks into `f`. `square` > 0: the
// device memory holds fewer tiles than the matrix, and gemm runs in square blocks of square x
// square output tiles (see gemm_rank).
template <typename TileFn>
void submit_tasks(Runtime& rt, const CholeskyCodelets& codelets, int nt, TileFn& tile,
                  Factorization& f, int square) {
  // for_each_task's priorities favour the critical path. Out of core they are spaced by `room` so
  // that gemm can be ordered within its column's level: the device's gemm should work through
  // one square block of output tiles (rows I, columns J, `square` each) for every k before it
  // moves on, so the block stays resident and each k loads only the 2 * square panel tiles A_Ik,
  // A_Jk, where the column order (all rows of column j at step k) rescans the whole panel column
  // for every j and LRU keeps none of it. Blocks go by column block first (the critical path),
  // then row block, then k.
  const int room = square > 0 ? nt * nt + nt + 1 : 1;
  auto gemm_priority = [&](int i, int j, int k, int priority) {
    if (square <= 0) return priority;
    int jb = j / square, ib = i / square;
    return 4 * (nt - jb * square) * room - (ib * nt + k) - 1;
  };
  for_each_task(nt, [&](Kernel kernel, int i, int j, int k, int priority) {
    switch (kernel) {
      case Kernel::Potrf:
        rt.submit(codelets.potrf, {{tile(k, k), Access::ReadWrite}}, priority * room);
        ++f.potrf_tasks;
        break;
      case Kernel::Trsm:
        rt.submit(codelets.trsm, {{tile(k, k), Access::Read}, {tile(i, k), Access::ReadWrite}},
                  priority * room);
        ++f.trsm_tasks;
        break;
      case Kernel::Gemm:
        rt.submit(codelets.gemm,
                  {{tile(i, k), Access::Read},
                   {tile(j, k), Access::Read},
                   {tile(i, j), Access::ReadWrite}},
                  gemm_priority(i, j, k, priority));
        ++f.gemm_tasks;
        break;
      case Kernel::Syrk:
        rt.submit(codelets.syrk, {{tile(i, k), Access::Read}, {tile(i, i), Access::ReadWrite}},
                  priority * room);
        ++f.syrk_tasks;
        break;
    }
  });
}

}  // namespace

template <typename T>
Factorization factorize(Runtime& rt, const CholeskyCodelets& codelets, T* a, int n, long ld,
                        int block, const MatrixHome& home) {
  constexpr Precision kPrecision = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
  if (codelets.precision != kPrecision)
    throw UsageError("cholesky: codelets built for " + std::string(to_string(codelets.precision)) +
                     " precision, matrix is " + std::string(to_string(kPrecision)));
  if (n <= 0) throw UsageError("cholesky: --n must be positive (got " + std::to_string(n) + ")");
  if (block <= 0)
    throw UsageError("cholesky: --block must be positive (got " + std::to_string(block) + ")");
  if (ld < n) throw UsageError("cholesky: leading dimension below n");
  common::check_home(rt, home, "cholesky");

  const int nt = (n + block - 1) / block;
  auto size_of = [&](int i) { return static_cast<std::size_t>(std::min(block, n - i * block)); };
  // Tile (i, j) of the lower triangle, i >= j, registered as its own matrix (a view of `a`).
  std::vector<Data> tiles(static_cast<std::size_t>(nt) * nt);
  auto tile = [&](int i, int j) -> Data& { return tiles[static_cast<std::size_t>(i + j * nt)]; };
  Factorization f;
  f.tiles = nt;
  double start = 0;
  try {
    for (int j = 0; j < nt; ++j)
      for (int i = j; i < nt; ++i)
        tile(i, j) = common::register_tile(
            rt, home, a + static_cast<long>(i) * block + static_cast<long>(j) * block * ld,
            size_of(i), size_of(j), static_cast<std::size_t>(ld),
            "A[" + std::to_string(i) + "," + std::to_string(j) + "]");
    // Out of core when the device memory holds fewer tiles than the lower triangle: gemm in
    // square blocks with room for the block and its two panel strips (square^2 + 2 square tiles).
    int square = 0;
    std::uint64_t limit = rt.options().device_memory_limit;
    std::uint64_t tile_bytes = static_cast<std::uint64_t>(block) * block * sizeof(T);
    std::uint64_t triangle = static_cast<std::uint64_t>(nt) * (nt + 1) / 2;
    if (limit > 0 && limit / tile_bytes < triangle) {
      std::uint64_t room = limit / tile_bytes;
      square = 1;
      while (static_cast<std::uint64_t>((square + 1) * (square + 1) + 2 * (square + 1)) <= room)
        ++square;
    }
    rt.reset_stats();
    start = rt.seconds();  // virtual time on a simulated platform
    submit_tasks(rt, codelets, nt, tile, f, square);
    rt.wait_all();
  } catch (...) {
    // No registration may outlive this call: the caller may free the matrix next.
    common::unregister_all(rt, {&tiles}, /*quiet=*/true);
    throw;
  }
  f.time_s = rt.seconds() - start;
  common::unregister_all(rt, {&tiles}, /*quiet=*/false);
  f.stats = rt.stats();  // after unregister, so that any final write-back is counted too
  return f;
}

template Factorization factorize<float>(Runtime&, const CholeskyCodelets&, float*, int, long, int,
                                        const MatrixHome&);
template Factorization factorize<double>(Runtime&, const CholeskyCodelets&, double*, int, long, int,
                                         const MatrixHome&);

}  // namespace conveyor::apps::cholesky
