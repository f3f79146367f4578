// The QR updates through CLBlast (built when CMake found it): see qr_opencl_clblast.hpp.
#include "qr/opencl/qr_opencl_clblast.hpp"

#include <algorithm>

#include "common/opencl/clblast_calls.hpp"
#include "common/opencl/opencl_calls.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "qr/update_blocks.hpp"

namespace conveyor::apps::qr {
namespace {

constexpr common::OpenclCalls kCl{"OpenCL qr"};
constexpr common::ClblastCalls kBlas{"OpenCL qr"};
constexpr CLBlastTranspose kNo = CLBlastTransposeNo, kYes = CLBlastTransposeYes;

// One of the element-wise helpers of the codelet's program on rows x cols entries, its arguments
// two ints then `rest`.
template <typename... Rest>
void helper(cl_command_queue q, cl_kernel sibling, const char* name, int rows, int cols,
            Rest... rest) {
  cl_kernel kernel = common::opencl_kernel_cache().kernel(kCl, sibling, name);
  cl_uint index = 0;
  kCl.arg(kernel, index++, cl_int{rows});
  kCl.arg(kernel, index++, cl_int{cols});
  (kCl.arg(kernel, index++, rest), ...);
  std::size_t global[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
  kCl.check(clEnqueueNDRangeKernel(q, kernel, 2, nullptr, global, nullptr, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

// A ClMatrix with its cl_mem typed and its offset as CLBlast takes it.
struct Mat {
  explicit Mat(ClMatrix m) : mem(static_cast<cl_mem>(m.mem)), off(std::size_t(m.off)), ld(m.ld) {}
  cl_mem mem;
  std::size_t off;
  int ld;
};

// W <- T_b^T W (or T_b W) as a gemm on T's blocks with their strict lower parts zeroed (LAPACK
// leaves them undefined): CLBlast's trmm would compile a second set of kernels, minutes on PoCL.
template <typename T>
class TStep {
 public:
  TStep(cl_command_queue q, cl_kernel sibling, bool transpose, int ib, int k, int n, const Mat& t)
      : q_(q), transpose_(transpose), ib_(ib) {
    common::OpenclKernelCache& cache = common::opencl_kernel_cache();
    tz_ = cache.scratch(kCl, q, 2, sizeof(T) * std::size_t(ib) * k);
    out_ = cache.scratch(kCl, q, 3, sizeof(T) * std::size_t(std::min(ib, k)) * n);
    helper(q, sibling, "qr_upper_blocks", ib, k, t.mem, cl_int(t.off), cl_int{t.ld}, tz_);
  }
  /// T_b^T w (T_b w) for the block at column i0 (kb x kb), w kb x n; the result's buffer (ld kb).
  cl_mem apply(int i0, int kb, int n, cl_mem w) const {
    kBlas.check(common::clblast_gemm(transpose_ ? kYes : kNo, kNo, kb, n, kb, T(1), tz_,
                                     std::size_t(i0) * ib_, ib_, w, 0, kb, T(0), out_, 0, kb, q_),
                "gemm");
    return out_;
  }

 private:
  cl_command_queue q_;
  bool transpose_;
  int ib_;
  cl_mem tz_, out_;
};

template <typename T>
void gemqrt(cl_command_queue q, cl_kernel sibling, bool transpose, int m, int n, int k, int ib,
            const Mat& v, const Mat& t, const Mat& c) {
  if (m == 0 || n == 0 || k == 0) return;
  common::OpenclKernelCache& cache = common::opencl_kernel_cache();
  // geqrt's V shares its tile with R: CLBlast needs it explicit (unit diagonal, zeros above).
  cl_mem y = cache.scratch(kCl, q, 0, sizeof(T) * std::size_t(m) * k);
  cl_mem w = cache.scratch(kCl, q, 1, sizeof(T) * std::size_t(std::min(ib, k)) * n);
  helper(q, sibling, "qr_unit_lower", m, k, v.mem, cl_int(v.off), cl_int{v.ld}, y);
  const TStep<T> t_step(q, sibling, transpose, ib, k, n, t);
  const int blocks = update_blocks(k, ib);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, ib);
    const int kb = std::min(ib, k - i0), rows = m - i0;
    const std::size_t yb = std::size_t(i0) + std::size_t(i0) * m;  // Y(i0, i0)
    const std::size_t cb = c.off + i0;                             // C(i0, 0)
    kBlas.check(common::clblast_gemm(kYes, kNo, kb, n, rows, T(1), y, yb, m, c.mem, cb, c.ld, T(0),
                                     w, 0, kb, q),
                "gemm");
    cl_mem tw = t_step.apply(i0, kb, n, w);
    kBlas.check(common::clblast_gemm(kNo, kNo, rows, n, kb, T(-1), y, yb, m, tw, 0, kb, T(1), c.mem,
                                     cb, c.ld, q),
                "gemm");
  }
}

// [a; b] <- Q^T [a; b] (or Q [a; b]): reflector j is e_j in a and v(:, j) in b, so
// W = A_b + V_b^T B.
template <typename T>
void tpmqrt(cl_command_queue q, cl_kernel sibling, bool transpose, int m, int n, int k, int ib,
            const Mat& v, const Mat& t, const Mat& a, const Mat& b) {
  if (n == 0 || k == 0) return;
  cl_mem w = common::opencl_kernel_cache().scratch(kCl, q, 1,
                                                   sizeof(T) * std::size_t(std::min(ib, k)) * n);
  const TStep<T> t_step(q, sibling, transpose, ib, k, n, t);
  const int blocks = update_blocks(k, ib);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, ib);
    const int kb = std::min(ib, k - i0);
    const std::size_t vb = v.off + std::size_t(i0) * v.ld;  // V(0, i0)
    const cl_int ab = cl_int(a.off) + i0;                   // A(i0, 0)
    helper(q, sibling, "qr_copy_rows", kb, n, a.mem, ab, cl_int{a.ld}, w);
    if (m > 0)
      kBlas.check(common::clblast_gemm(kYes, kNo, kb, n, m, T(1), v.mem, vb, v.ld, b.mem, b.off,
                                       b.ld, T(1), w, 0, kb, q),
                  "gemm");
    cl_mem tw = t_step.apply(i0, kb, n, w);
    helper(q, sibling, "qr_sub_rows", kb, n, a.mem, ab, cl_int{a.ld}, tw);
    if (m > 0)
      kBlas.check(common::clblast_gemm(kNo, kNo, m, n, kb, T(-1), v.mem, vb, v.ld, tw, 0, kb, T(1),
                                       b.mem, b.off, b.ld, q),
                  "gemm");
  }
}

}  // namespace

void clblast_gemqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                            int n, int k, int ib, ClMatrix v, ClMatrix t, ClMatrix c) {
  auto q = static_cast<cl_command_queue>(queue);
  auto s = static_cast<cl_kernel>(kernel);
  if (elem_size == sizeof(float))
    gemqrt<float>(q, s, transpose, m, n, k, ib, Mat(v), Mat(t), Mat(c));
  else
    gemqrt<double>(q, s, transpose, m, n, k, ib, Mat(v), Mat(t), Mat(c));
}

void clblast_tpmqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                            int n, int k, int ib, ClMatrix v, ClMatrix t, ClMatrix a, ClMatrix b) {
  auto q = static_cast<cl_command_queue>(queue);
  auto s = static_cast<cl_kernel>(kernel);
  if (elem_size == sizeof(float))
    tpmqrt<float>(q, s, transpose, m, n, k, ib, Mat(v), Mat(t), Mat(a), Mat(b));
  else
    tpmqrt<double>(q, s, transpose, m, n, k, ib, Mat(v), Mat(t), Mat(a), Mat(b));
}

}  // namespace conveyor::apps::qr
