// The QR updates in blocked WY form (built when CMake found OpenCL): see qr_opencl_blocked.hpp.
#include <algorithm>

#include "common/opencl/gemm.hpp"
#include "common/opencl/opencl_calls.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "qr/opencl/qr_opencl_blocked.hpp"
#include "qr/update_blocks.hpp"

namespace conveyor::apps::qr {
namespace {

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
  enqueue_entries(q, kernel, rows, cols);
}

// A ClMatrix as common::gemm takes it, `rows` and `cols` further in.
common::ClOperand at(const ClMatrix& m, int rows = 0, int cols = 0) {
  return {static_cast<cl_mem>(m.mem), std::size_t(m.off) + rows + std::size_t(cols) * m.ld, m.ld};
}

// The gemm calls of one update: its path, queue, the codelet's kernel (whose program holds the
// CPU gemm and the helpers) and element size.
struct Gemm {
  common::GemmPath path;
  cl_command_queue q;
  cl_kernel sibling;
  std::size_t elem_size;
  void operator()(bool ta, bool tb, int m, int n, int k, double alpha, common::ClOperand a,
                  common::ClOperand b, double beta, common::ClOperand c) const {
    common::gemm(path, kCl, q, sibling, elem_size, ta, tb, m, n, k, alpha, a, b, beta, c);
  }
};

// W <- T_b^T W (or T_b W) as a gemm on T's blocks with their strict lower parts zeroed (LAPACK
// leaves them undefined): CLBlast's trmm would compile a second set of kernels, minutes on PoCL.
class TStep {
 public:
  TStep(const Gemm& gemm, bool transpose, int ib, int k, int n, const ClMatrix& t)
      : gemm_(gemm), transpose_(transpose), ib_(ib) {
    common::OpenclKernelCache& cache = common::opencl_kernel_cache();
    tz_ = cache.scratch(kCl, gemm.q, 2, gemm.elem_size * std::size_t(ib) * k);
    out_ = cache.scratch(kCl, gemm.q, 3, gemm.elem_size * std::size_t(std::min(ib, k)) * n);
    helper(gemm.q, gemm.sibling, "qr_upper_blocks", ib, k, static_cast<cl_mem>(t.mem),
           cl_int(t.off), cl_int{t.ld}, tz_);
  }
  /// T_b^T w (T_b w) for the block at column i0 (kb x kb), w kb x n; the result's buffer (ld kb).
  cl_mem apply(int i0, int kb, int n, cl_mem w) const {
    gemm_(transpose_, false, kb, n, kb, 1.0, {tz_, std::size_t(i0) * ib_, ib_}, {w, 0, kb}, 0.0,
          {out_, 0, kb});
    return out_;
  }

 private:
  const Gemm& gemm_;
  bool transpose_;
  int ib_;
  cl_mem tz_, out_;
};

void gemqrt(const Gemm& gemm, bool transpose, int m, int n, int k, int ib, const ClMatrix& v,
            const ClMatrix& t, const ClMatrix& c) {
  if (m == 0 || n == 0 || k == 0) return;
  common::OpenclKernelCache& cache = common::opencl_kernel_cache();
  // geqrt's V shares its tile with R: the gemm needs it explicit (unit diagonal, zeros above).
  cl_mem y = cache.scratch(kCl, gemm.q, 0, gemm.elem_size * std::size_t(m) * k);
  cl_mem w = cache.scratch(kCl, gemm.q, 1, gemm.elem_size * std::size_t(std::min(ib, k)) * n);
  helper(gemm.q, gemm.sibling, "qr_unit_lower", m, k, static_cast<cl_mem>(v.mem), cl_int(v.off),
         cl_int{v.ld}, y);
  const TStep t_step(gemm, transpose, ib, k, n, t);
  const int blocks = update_blocks(k, ib);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, ib);
    const int kb = std::min(ib, k - i0), rows = m - i0;
    const common::ClOperand yb{y, std::size_t(i0) + std::size_t(i0) * m, m};  // Y(i0, i0)
    gemm(true, false, kb, n, rows, 1.0, yb, at(c, i0), 0.0, {w, 0, kb});
    cl_mem tw = t_step.apply(i0, kb, n, w);
    gemm(false, false, rows, n, kb, -1.0, yb, {tw, 0, kb}, 1.0, at(c, i0));
  }
}

// [a; b] <- Q^T [a; b] (or Q [a; b]): reflector j is e_j in a and v(:, j) in b, so
// W = A_b + V_b^T B.
void tpmqrt(const Gemm& gemm, bool transpose, int m, int n, int k, int ib, const ClMatrix& v,
            const ClMatrix& t, const ClMatrix& a, const ClMatrix& b) {
  if (n == 0 || k == 0) return;
  cl_mem w = common::opencl_kernel_cache().scratch(
      kCl, gemm.q, 1, gemm.elem_size * std::size_t(std::min(ib, k)) * n);
  const TStep t_step(gemm, transpose, ib, k, n, t);
  const int blocks = update_blocks(k, ib);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, ib);
    const int kb = std::min(ib, k - i0);
    const cl_int ab = cl_int(a.off) + i0;  // A(i0, 0)
    helper(gemm.q, gemm.sibling, "qr_copy_rows", kb, n, static_cast<cl_mem>(a.mem), ab,
           cl_int{a.ld}, w);
    if (m > 0) gemm(true, false, kb, n, m, 1.0, at(v, 0, i0), at(b), 1.0, {w, 0, kb});
    cl_mem tw = t_step.apply(i0, kb, n, w);
    helper(gemm.q, gemm.sibling, "qr_sub_rows", kb, n, static_cast<cl_mem>(a.mem), ab, cl_int{a.ld},
           tw);
    if (m > 0) gemm(false, false, m, n, kb, -1.0, at(v, 0, i0), {tw, 0, kb}, 1.0, at(b));
  }
}

}  // namespace

void enqueue_entries(void* queue, void* kernel, int rows, int cols) {
  constexpr std::size_t group = 16;
  std::size_t local[2] = {group, group};
  std::size_t global[2] = {(std::size_t(rows) + group - 1) / group * group,
                           (std::size_t(cols) + group - 1) / group * group};
  kCl.check(
      clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), static_cast<cl_kernel>(kernel),
                             2, nullptr, global, local, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel");
}

void blocked_gemqrt_enqueue(common::GemmPath path, void* queue, void* kernel, std::size_t elem_size,
                            bool transpose, int m, int n, int k, int ib, ClMatrix v, ClMatrix t,
                            ClMatrix c) {
  const Gemm gemm{path, static_cast<cl_command_queue>(queue), static_cast<cl_kernel>(kernel),
                  elem_size};
  gemqrt(gemm, transpose, m, n, k, ib, v, t, c);
}

void blocked_tpmqrt_enqueue(common::GemmPath path, void* queue, void* kernel, std::size_t elem_size,
                            bool transpose, int m, int n, int k, int ib, ClMatrix v, ClMatrix t,
                            ClMatrix a, ClMatrix b) {
  const Gemm gemm{path, static_cast<cl_command_queue>(queue), static_cast<cl_kernel>(kernel),
                  elem_size};
  tpmqrt(gemm, transpose, m, n, k, ib, v, t, a, b);
}

}  // namespace conveyor::apps::qr
