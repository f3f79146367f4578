#include "qr/tree_codelets.hpp"

#include <cstddef>

#include "common/narrow.hpp"
#include "qr/qr_cpu_kernels.hpp"

namespace conveyor::apps::qr {
namespace {

using common::as_double;
using common::as_int;

// Buffers in the order of the task's accesses (qr_graph.hpp); every dimension comes from them.
template <typename T>
void add_implementations(TreeCodelets& c) {
  c.ttqrt.cpu([](const TaskContext& t) {
    const Buffer &r = t.buffer(0), &b = t.buffer(1), &f = t.buffer(2);
    cpu_ttqrt<T>(as_int(b.rows), as_int(b.cols), as_int(f.rows), t.data<T>(0), as_int(r.ld),
                 t.data<T>(1), as_int(b.ld), t.data<T>(2), as_int(f.ld));
  });
  c.ttmqrt.cpu([](const TaskContext& t) {
    const Buffer &v = t.buffer(0), &f = t.buffer(1), &a = t.buffer(2), &b = t.buffer(3);
    cpu_ttmqrt<T>(true, as_int(b.rows), as_int(b.cols), as_int(v.cols), as_int(f.rows),
                  t.data<T>(0), as_int(v.ld), t.data<T>(1), as_int(f.ld), t.data<T>(2),
                  as_int(a.ld), t.data<T>(3), as_int(b.ld));
  });
}

// LAPACK's counts to leading order for square b x b tiles: the triangle halves the work of the
// TS kernels (ttqrt 2/3 b^3, ttmqrt 2 b^3).
double ttqrt_flops(const TaskContext& t) {
  double m = as_double(t.buffer(1).rows), n = as_double(t.buffer(1).cols);
  return 2 * m * n * n / 3;
}
double ttmqrt_flops(const TaskContext& t) {
  const Buffer &v = t.buffer(0), &b = t.buffer(3);
  return 2 * as_double(b.rows) * as_double(b.cols) * as_double(v.cols);
}

}  // namespace

TreeCodelets::TreeCodelets(common::Precision p) : precision(p), ttqrt("ttqrt"), ttmqrt("ttmqrt") {
  if (p == common::Precision::Single)
    add_implementations<float>(*this);
  else
    add_implementations<double>(*this);
  ttqrt.flops(ttqrt_flops);
  ttmqrt.flops(ttmqrt_flops);
}

}  // namespace conveyor::apps::qr
