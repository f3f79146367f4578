// Enqueues the OpenCL QR tile kernels (built when CMake found OpenCL).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/opencl/opencl_calls.hpp"
#include "common/opencl/opencl_kernel_cache.hpp"
#include "common/opencl_blas.hpp"
#include "conveyor/error.hpp"
#include "qr/opencl/qr_opencl_blocked.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace conveyor::apps::qr {
namespace {

// Sets the kernel's arguments in order: ints as cl_int, pointers as cl_mem.
class Args {
 public:
  explicit Args(void* kernel) : kernel_(static_cast<cl_kernel>(kernel)) {
    if (!kernel_) throw Error("OpenCL qr: the codelet has no kernel (program not built)");
  }
  Args& operator<<(int v) { return set(sizeof(cl_int), &v); }
  Args& operator<<(void* mem) {
    auto m = static_cast<cl_mem>(mem);
    return set(sizeof m, &m);
  }
  /// A __local buffer of `bytes`.
  Args& local(std::size_t bytes) { return set(bytes, nullptr); }
  cl_kernel kernel() const { return kernel_; }

 private:
  Args& set(std::size_t size, const void* value) {
    kCl.check(clSetKernelArg(kernel_, index_++, size, value), "clSetKernelArg");
    return *this;
  }
  cl_kernel kernel_;
  cl_uint index_ = 0;
};

// The panel kernels: one work-group; its scratch holds the group's partial sums and a block's ib
// dot products.
void enqueue_panel(void* queue, Args& args, std::size_t elem_size, int ib) {
  args.local(elem_size * static_cast<std::size_t>(std::max(kOpenclPanelGroup, ib)));
  std::size_t group = kOpenclPanelGroup;
  kCl.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), args.kernel(), 1, nullptr,
                                   &group, &group, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

// The updates: one work-item per column, the range rounded up to groups of 32.
void enqueue_columns(void* queue, const Args& args, int n) {
  std::size_t local = 32;
  std::size_t global = (static_cast<std::size_t>(n) + local - 1) / local * local;
  kCl.check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue), args.kernel(), 1, nullptr,
                                   &global, &local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
}

Args& operator<<(Args& args, const ClMatrix& x) { return args << x.mem << x.off << x.ld; }

// The kernel `name` of the program `sibling` (a codelet's kernel) was built from, this thread's
// own.
void* sibling_kernel(void* sibling, const char* name) {
  Args check(sibling);  // the codelet's kernel exists
  return common::opencl_kernel_cache().kernel(kCl, static_cast<cl_kernel>(sibling), name);
}

// How the updates run on `queue`: blocked through a gemm (CLBlast's where common::use_clblast says
// so, else the CPU gemm on CPU devices), or one work-item per column (nullopt).
std::optional<common::GemmPath> blocked_path(void* queue) {
  const bool cpu = common::opencl_kernel_cache().is_cpu(kCl, static_cast<cl_command_queue>(queue));
  if (common::use_clblast(!cpu && kClblastUpdatesByDefault)) return common::GemmPath::Clblast;
  if (cpu && opencl_updates() == OpenclUpdates::Auto) return common::GemmPath::Cpu;
  return std::nullopt;
}

// The kernel an update runs through: the codelet's (`kernel`, any of the program's) when blocked,
// for its helpers and gemm, else the per-column kernel `name`.
void* update_kernel(const std::optional<common::GemmPath>& path, void* kernel, const char* name) {
  return path ? kernel : sibling_kernel(kernel, name);
}

// c <- Q^T c, or Q c (c m x n) for k reflectors, blocked along `path` or per column (`kernel`:
// qr_gemqrt then).
void gemqrt(const std::optional<common::GemmPath>& path, void* queue, void* kernel,
            std::size_t elem_size, bool transpose, int m, int n, int k, int ib, ClMatrix v,
            ClMatrix t, ClMatrix c) {
  if (path)
    return blocked_gemqrt_enqueue(*path, queue, kernel, elem_size, transpose, m, n, k, ib, v, t, c);
  Args args(kernel);
  args << m << n << k << ib << v << t << c << (transpose ? 1 : 0);
  enqueue_columns(queue, args, n);
}

// [a; b] <- Q^T [a; b], or Q [a; b] (a k x n, b m x n), as gemqrt (per column: qr_tpmqrt).
void tpmqrt(const std::optional<common::GemmPath>& path, void* queue, void* kernel,
            std::size_t elem_size, bool transpose, int m, int n, int k, int ib, ClMatrix v,
            ClMatrix t, ClMatrix a, ClMatrix b) {
  if (path)
    return blocked_tpmqrt_enqueue(*path, queue, kernel, elem_size, transpose, m, n, k, ib, v, t, a,
                                  b);
  Args args(kernel);
  args << m << n << k << ib << v << t << a << b << (transpose ? 1 : 0);
  enqueue_columns(queue, args, n);
}

}  // namespace

bool opencl_kernels_available() { return true; }

// Blocked as LAPACK's geqrt: each panel of ib columns by the panel kernel (level-2 code in one
// work-group), then the columns right of it updated with the panel's reflectors as gemqrt does, so
// that all but a panel's share of the flops run as gemm or across all work-groups (per column).
void opencl_geqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* a, int lda, void* t, int ldt, void* v, int ldv) {
  const int k = std::min(m, n);
  const auto path = blocked_path(queue);
  void* update = update_kernel(path, kernel, "qr_gemqrt");
  for (int i0 = 0; i0 < k; i0 += ib) {
    const int kb = std::min(ib, k - i0);
    const ClMatrix panel{a, i0 + i0 * lda, lda}, tb{t, i0 * ldt, ldt};
    Args args(kernel);
    args << m - i0 << kb << ib << panel << tb;
    enqueue_panel(queue, args, elem_size, ib);
    if (i0 + kb < n)
      gemqrt(path, queue, update, elem_size, true, m - i0, n - i0 - kb, kb, ib, panel, tb,
             {a, i0 + (i0 + kb) * lda, lda});
  }
  if (m == 0 || n == 0) return;
  Args copy(sibling_kernel(kernel, "qr_copy_tile"));
  copy << m << n << a << lda << v << ldv;
  enqueue_entries(queue, copy.kernel(), m, n);
}

void opencl_gemqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                           int n, int k, int ib, void* v, int ldv, void* t, int ldt, void* c,
                           int ldc) {
  gemqrt(blocked_path(queue), queue, kernel, elem_size, transpose, m, n, k, ib, {v, 0, ldv},
         {t, 0, ldt}, {c, 0, ldc});
}

// Blocked as geqrt: a panel of ib columns of [r; b], then tpmqrt on the columns right of it.
void opencl_tpqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, int m, int n, int ib,
                          void* r, int ldr, void* b, int ldb, void* t, int ldt) {
  const auto path = blocked_path(queue);
  void* update = update_kernel(path, kernel, "qr_tpmqrt");
  for (int i0 = 0; i0 < n; i0 += ib) {
    const int kb = std::min(ib, n - i0);
    const ClMatrix vb{b, i0 * ldb, ldb}, tb{t, i0 * ldt, ldt};
    Args args(kernel);
    args << m << kb << ib << ClMatrix{r, i0 + i0 * ldr, ldr} << vb << tb;
    enqueue_panel(queue, args, elem_size, ib);
    if (i0 + kb < n)
      tpmqrt(path, queue, update, elem_size, true, m, n - i0 - kb, kb, ib, vb, tb,
             {r, i0 + (i0 + kb) * ldr, ldr}, {b, (i0 + kb) * ldb, ldb});
  }
}

void opencl_tpmqrt_enqueue(void* queue, void* kernel, std::size_t elem_size, bool transpose, int m,
                           int n, int k, int ib, void* v, int ldv, void* t, int ldt, void* a,
                           int lda, void* b, int ldb) {
  tpmqrt(blocked_path(queue), queue, kernel, elem_size, transpose, m, n, k, ib, {v, 0, ldv},
         {t, 0, ldt}, {a, 0, lda}, {b, 0, ldb});
}

}  // namespace conveyor::apps::qr
