#include "qr/q_forming.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "common/matrix_home.hpp"
#include "common/narrow.hpp"
#include "conveyor/error.hpp"
#include "qr/qr_check.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_device_codelets.hpp"
#include "qr/qr_graph.hpp"

namespace conveyor::apps::qr {
namespace {

using common::as_double;
using common::as_int;

// Buffers in the order of q_forming.hpp; every dimension comes from them, as in qr.cpp.
template <typename T>
void add_implementations(QFormingCodelets& c) {
  c.apply_geqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &q = t.buffer(2);
    cpu_gemqrt<T>(false, as_int(q.rows), as_int(q.cols), as_int(std::min(v.rows, v.cols)),
                  as_int(f.rows), t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld),
                  t.data<T>(2), as_int(q.ld));
  });
  c.apply_tpqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &top = t.buffer(2), &q = t.buffer(3);
    cpu_tpmqrt<T>(false, as_int(q.rows), as_int(q.cols), as_int(v.cols), as_int(f.rows),
                  t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld), t.data<T>(2),
                  as_int(top.ld), t.data<T>(3), as_int(q.ld));
  });
  c.apply_ttqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &top = t.buffer(2), &q = t.buffer(3);
    cpu_ttmqrt<T>(false, as_int(q.rows), as_int(q.cols), as_int(v.cols), as_int(f.rows),
                  t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld), t.data<T>(2),
                  as_int(top.ld), t.data<T>(3), as_int(q.ld));
  });
}

// The factorisation's counts (qr.cpp) for the transposed application of the same reflectors.
double apply_geqrt_flops(const TaskContext& t) {
  const Buffer &v = t.buffer(0), &q = t.buffer(2);
  double k = as_double(std::min(v.rows, v.cols));
  return 4 * as_double(q.rows) * as_double(q.cols) * k - 2 * as_double(q.cols) * k * k;
}
double apply_tpqrt_flops(const TaskContext& t) {
  const Buffer &v = t.buffer(0), &q = t.buffer(3);
  return 4 * as_double(q.rows) * as_double(q.cols) * as_double(v.cols);
}
double apply_ttqrt_flops(const TaskContext& t) { return apply_tpqrt_flops(t) / 2; }

}  // namespace

QFormingCodelets::QFormingCodelets(common::Precision p)
    : precision(p),
      apply_geqrt("apply_geqrt"),
      apply_tpqrt("apply_tpqrt"),
      apply_ttqrt("apply_ttqrt") {
  if (p == common::Precision::Single)
    add_implementations<float>(*this);
  else
    add_implementations<double>(*this);
  add_device_implementations(*this);
  apply_geqrt.flops(apply_geqrt_flops);
  apply_tpqrt.flops(apply_tpqrt_flops);
  apply_ttqrt.flops(apply_ttqrt_flops);
}

template <typename T>
std::vector<T> form_q(Runtime& rt, const QFormingCodelets& codelets, const T* a, long ld,
                      const TFactors<T>& t, int columns) {
  std::vector<T> q = identity_columns(t, columns);
  form_q(rt, codelets, a, ld, t, columns, q.data(), t.m(), common::MatrixHome::host());
  return q;
}

template <typename T>
void form_q(Runtime& rt, const QFormingCodelets& codelets, const T* a, long ld,
            const TFactors<T>& t, int columns, T* q, long ldq, const common::MatrixHome& home) {
  constexpr auto kPrecision =
      std::is_same_v<T, float> ? common::Precision::Single : common::Precision::Double;
  if (codelets.precision != kPrecision)
    throw UsageError("qr: Q-forming codelets of another precision");
  const int m = t.m(), b = t.block(), mt = t.row_tiles(), nt = t.tiles();
  check_q_columns(m, t.n(), columns);
  if (ld < m || ldq < m) throw UsageError("qr: leading dimensions below m = " + std::to_string(m));
  common::check_home(rt, home, "qr");

  const int qt = (columns + b - 1) / b;  // tile columns of Q
  auto height = [&](int i) { return static_cast<std::size_t>(t.height(i)); };
  auto width = [&](int k) { return static_cast<std::size_t>(t.width(k)); };
  auto q_width = [&](int j) { return static_cast<std::size_t>(std::min(b, columns - j * b)); };
  const auto factors_ld = static_cast<std::size_t>(t.ld());
  std::vector<Data> in(static_cast<std::size_t>(mt) * nt), factors(in.size()),
      tree_factors(in.size()), out(static_cast<std::size_t>(mt) * qt);
  auto at = [&](std::vector<Data>& set, int i, int j) -> Data& {
    return set[static_cast<std::size_t>(i + j * mt)];
  };
  try {
    // The reflectors and factors are only read (Access::Read below); registering needs mutable
    // pointers.
    T* reflectors = const_cast<T*>(a);
    auto& tf = const_cast<TFactors<T>&>(t);
    for (int k = 0; k < nt; ++k)
      for (int i = k; i < mt; ++i) {
        at(in, i, k) =
            common::register_tile(rt, home, reflectors + i * long{b} + k * b * ld, height(i),
                                  width(k), static_cast<std::size_t>(ld), "V");
        at(factors, i, k) = rt.register_matrix(
            tf.tile(i, k), static_cast<std::size_t>(t.rows(i, k)), width(k), factors_ld, "T");
        if (i > k && is_domain_top(i, k, t.domains()))
          at(tree_factors, i, k) = rt.register_matrix(
              tf.tree_tile(i, k), static_cast<std::size_t>(t.ib(k)), width(k), factors_ld, "TT");
      }
    for (int j = 0; j < qt; ++j)
      for (int i = 0; i < mt; ++i)
        at(out, i, j) = common::register_tile(rt, home, q + i * long{b} + j * b * ldq, height(i),
                                              q_width(j), static_cast<std::size_t>(ldq), "Q");
    // The factorisation's kernels that make reflectors, last first.
    const std::vector<Task> steps = reflector_tasks(mt, nt, t.domains());
    for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
      const int i = step->i, k = step->k, h = step->top;
      for (int j = k; j < qt; ++j) {
        if (step->kernel == Kernel::Geqrt)
          rt.submit(codelets.apply_geqrt, {{at(in, i, k), Access::Read},
                                           {at(factors, i, k), Access::Read},
                                           {at(out, i, j), Access::ReadWrite}});
        else
          rt.submit(
              step->kernel == Kernel::Tpqrt ? codelets.apply_tpqrt : codelets.apply_ttqrt,
              {{at(in, i, k), Access::Read},
               {at(step->kernel == Kernel::Tpqrt ? factors : tree_factors, i, k), Access::Read},
               {at(out, h, j), Access::ReadWrite},
               {at(out, i, j), Access::ReadWrite}});
      }
    }
    rt.wait_all();
  } catch (...) {
    common::unregister_all(rt, {&in, &factors, &tree_factors, &out}, /*quiet=*/true);
    throw;
  }
  common::unregister_all(rt, {&in, &factors, &tree_factors, &out}, /*quiet=*/false);
}

#define CONVEYOR_INSTANTIATE(T)                                                                  \
  template std::vector<T> form_q<T>(Runtime&, const QFormingCodelets&, const T*, long,           \
                                    const TFactors<T>&, int);                                    \
  template void form_q<T>(Runtime&, const QFormingCodelets&, const T*, long, const TFactors<T>&, \
                          int, T*, long, const common::MatrixHome&);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
