#include "qr/qr_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/blas_threads.hpp"
#include "common/parallel_for.hpp"
#include "common/precision.hpp"
#include "conveyor/error.hpp"
#include "qr/qr_cpu_kernels.hpp"
#include "qr/qr_graph.hpp"

namespace conveyor::apps::qr {
namespace {

// The check runs outside the task graph: one big BLAS call at a time, so BLAS gets every core,
// and the tasks that may follow get their one thread back.
struct AllBlasThreads {
  AllBlasThreads() { common::use_all_threads_blas(); }
  ~AllBlasThreads() { common::use_single_threaded_blas(); }
};

// Sum over columns of column_sum(c), computed in parallel; the per-column partial sums are added
// in order so that the result does not depend on the schedule.
template <typename F>
double sum_over_columns(int n, F column_sum) {
  std::vector<double> partial(static_cast<std::size_t>(n));
  common::parallel_for(n, [&](long c) { partial[static_cast<std::size_t>(c)] = column_sum(c); });
  double total = 0;
  for (double v : partial) total += v;
  return total;
}

double finite_or_infinity(double v) {
  return std::isfinite(v) ? v : std::numeric_limits<double>::infinity();
}

}  // namespace

void check_q_columns(int m, int n, int columns) {
  if (columns < n || columns > m)
    throw UsageError("qr: Q has between n = " + std::to_string(n) + " and m = " +
                     std::to_string(m) + " columns (asked for " + std::to_string(columns) + ")");
}

template <typename T>
std::vector<T> identity_columns(const TFactors<T>& t, int columns) {
  const int m = t.m();
  check_q_columns(m, t.n(), columns);
  const long mm = m;
  std::vector<T> q(static_cast<std::size_t>(mm * columns), T(0));
  for (long i = 0; i < columns; ++i) q[static_cast<std::size_t>(i + i * mm)] = T(1);
  return q;
}

template <typename T>
std::vector<T> form_q(const T* a, long ld, const TFactors<T>& t, int columns) {
  const int m = t.m(), b = t.block();
  const long mm = m;
  std::vector<T> q = identity_columns(t, columns);
  // Q = Q_1 Q_2 ... (each factorisation kernel's Q, in program order) applied to I: the kernels in
  // reverse order, without transpose.
  const std::vector<Task> tasks = reflector_tasks(t.row_tiles(), t.tiles(), t.domains());
  auto at = [&](int row_tile, int c0) { return q.data() + long{row_tile} * b + c0 * mm; };
  auto in = [&](int row_tile, int c0) { return a + long{row_tile} * b + c0 * ld; };
  const int lda = static_cast<int>(ld), ldt = static_cast<int>(t.ld());
  for (auto task = tasks.rbegin(); task != tasks.rend(); ++task) {
    // Steps after k only touched rows below k's tile row, where columns left of tile k are still
    // those of I (zero): apply step k to the columns from k's tile on.
    const int k = task->k, i = task->i, h = task->top;
    const int c0 = k * b, cols = columns - c0, wk = t.width(k), hi = t.height(i);
    switch (task->kernel) {
      case Kernel::Geqrt:
        cpu_gemqrt<T>(false, hi, cols, std::min(hi, wk), t.rows(i, k), in(i, c0), lda, t.tile(i, k),
                      ldt, at(i, c0), m);
        break;
      case Kernel::Tpqrt:
        cpu_tpmqrt<T>(false, hi, cols, wk, t.ib(k), in(i, c0), lda, t.tile(i, k), ldt, at(h, c0), m,
                      at(i, c0), m);
        break;
      case Kernel::Ttqrt:
        cpu_ttmqrt<T>(false, hi, cols, wk, t.ib(k), in(i, c0), lda, t.tree_tile(i, k), ldt,
                      at(h, c0), m, at(i, c0), m);
        break;
      default:
        break;
    }
  }
  return q;
}

template <typename T>
std::vector<T> form_q(const T* a, long ld, const TFactors<T>& t) {
  return form_q(a, ld, t, t.m());
}

template <typename T>
QrCheck check_qr(const GeneralMatrix& original, const T* a, long ld, const TFactors<T>& t) {
  AllBlasThreads blas_threads;
  const int m = t.m(), n = t.n();
  const long mm = m, nn = n;
  std::vector<double> q(static_cast<std::size_t>(mm * nn));
  {
    std::vector<T> qt = form_q(a, ld, t, n);  // the reduced Q, m x n: A = Q R with R n x n
    common::parallel_for(n, [&](long c) {
      for (long r = 0; r < mm; ++r)
        q[static_cast<std::size_t>(r + c * mm)] = qt[static_cast<std::size_t>(r + c * mm)];
    });
  }
  QrCheck result;
  std::vector<double> w(static_cast<std::size_t>(nn * nn));

  // Q^T Q in the upper triangle; each off-diagonal entry stands for its mirror image too.
  host_gram_upper(m, n, q.data(), m, w.data(), n);
  double orth_sq = sum_over_columns(n, [&](long c) {
    double s = 0;
    for (long r = 0; r <= c; ++r) {
      double d = w[static_cast<std::size_t>(r + c * nn)] - (r == c ? 1.0 : 0.0);
      s += (r == c ? 1.0 : 2.0) * d * d;
    }
    return s;
  });
  result.orthogonality = finite_or_infinity(std::sqrt(orth_sq) / n);

  // R (the upper triangle of a's first n rows) in double, zeros below, then Q <- Q R.
  common::parallel_for(n, [&](long c) {
    double* dst = w.data() + c * nn;
    const T* src = a + c * ld;
    for (long r = 0; r < nn; ++r) dst[r] = r <= c ? static_cast<double>(src[r]) : 0.0;
  });
  host_times_upper(m, n, w.data(), n, q.data(), m);
  double norm_sq = 0;
  double error_sq = 0;
  {
    std::vector<double> norms(static_cast<std::size_t>(n));
    error_sq = sum_over_columns(n, [&](long c) {
      double e = 0, s = 0;
      for (long r = 0; r < mm; ++r) {
        double v = original(static_cast<int>(r), static_cast<int>(c));
        double d = v - q[static_cast<std::size_t>(r + c * mm)];
        e += d * d;
        s += v * v;
      }
      norms[static_cast<std::size_t>(c)] = s;
      return e;
    });
    for (double s : norms) norm_sq += s;
  }
  result.residual = finite_or_infinity(std::sqrt(error_sq) / std::sqrt(norm_sq));
  return result;
}

// Householder QR is backward stable: the worst-case bounds grow like n u (Higham, Accuracy and
// Stability, thm 19.4 and 19.13, up to small constants), which is also the scale LAPACK's own QR
// tests divide by (xQRT01: ||A - Q R|| / (n ||A|| eps) and ||I - Q^T Q|| / (n eps), threshold 30).
// Measured values sit far below (docs/qr.md), and a skipped or misordered task changes a whole
// tile by O(1), far above, so c = 4 leaves the check both quiet and sharp.
constexpr double kBoundConstant = 4.0;

template <typename T>
double residual_bound(int n) {
  return kBoundConstant * n * common::unit_roundoff<T>();
}
template <typename T>
double orthogonality_bound(int n) {
  return kBoundConstant * n * common::unit_roundoff<T>();
}

template std::vector<float> identity_columns<float>(const TFactors<float>&, int);
template std::vector<double> identity_columns<double>(const TFactors<double>&, int);
template std::vector<float> form_q<float>(const float*, long, const TFactors<float>&);
template std::vector<double> form_q<double>(const double*, long, const TFactors<double>&);
template std::vector<float> form_q<float>(const float*, long, const TFactors<float>&, int);
template std::vector<double> form_q<double>(const double*, long, const TFactors<double>&, int);
template QrCheck check_qr<float>(const GeneralMatrix&, const float*, long, const TFactors<float>&);
template QrCheck check_qr<double>(const GeneralMatrix&, const double*, long,
                                  const TFactors<double>&);
template double residual_bound<float>(int);
template double residual_bound<double>(int);
template double orthogonality_bound<float>(int);
template double orthogonality_bound<double>(int);

}  // namespace conveyor::apps::qr
