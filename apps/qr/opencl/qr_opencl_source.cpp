// The OpenCL C source of the QR tile kernels (plain text; built with or without OpenCL): a prelude
// mapping device_kernels.inc's macros to OpenCL C, the shared code as a string, and the kernels.
#include <atomic>
#include <string>

#include "common/opencl_cpu_gemm.hpp"
#include "qr/opencl/qr_opencl_kernels.hpp"

namespace conveyor::apps::qr {
namespace {

constexpr const char* kPrelude = R"CLC(
#ifdef REAL_IS_DOUBLE
#  ifdef cl_khr_fp64
#    pragma OPENCL EXTENSION cl_khr_fp64 : enable
#  else
#    error "double precision needs cl_khr_fp64, which this device lacks"
#  endif
#endif
#ifndef REAL
#  define REAL float
#endif
#define GLOBAL __global
#define LOCAL __local
#define DEVICE_FN
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
)CLC";

// The shared code, stringified by the preprocessor: its macros stay for the OpenCL compiler.
#define QR_DEVICE_CODE(...) #__VA_ARGS__
constexpr const char* kShared =
#include "qr/device_kernels.inc"
    ;
#undef QR_DEVICE_CODE

// The panel kernels run as one work-group on one panel of at most ib columns; the updates one
// work-item per column (the launcher rounds the range up, so work-items past the last column
// return). Every matrix comes as a buffer, an offset in elements and a leading dimension, so that
// the launcher can name a panel or the columns right of it inside a tile.
constexpr const char* kKernels = R"CLC(
__kernel void qr_geqrt(const int m, const int n, const int ib, __global REAL* a, const int a_off,
                       const int lda, __global REAL* t, const int t_off, const int ldt,
                       __local REAL* scratch) {
  qr_geqrt_group(m, n, ib, a + a_off, lda, t + t_off, ldt, scratch, get_local_id(0),
                 get_local_size(0));
}
__kernel void qr_tpqrt(const int m, const int n, const int ib, __global REAL* r, const int r_off,
                       const int ldr, __global REAL* b, const int b_off, const int ldb,
                       __global REAL* t, const int t_off, const int ldt, __local REAL* scratch) {
  qr_tpqrt_group(m, n, ib, r + r_off, ldr, b + b_off, ldb, t + t_off, ldt, scratch,
                 get_local_id(0), get_local_size(0));
}
__kernel void qr_gemqrt(const int m, const int n, const int k, const int ib,
                        __global const REAL* v, const int v_off, const int ldv,
                        __global const REAL* t, const int t_off, const int ldt, __global REAL* c,
                        const int c_off, const int ldc, const int transpose) {
  const int col = get_global_id(0);
  if (col < n)
    qr_gemqrt_column(col, m, k, ib, v + v_off, ldv, t + t_off, ldt, c + c_off, ldc, transpose);
}
__kernel void qr_tpmqrt(const int m, const int n, const int k, const int ib,
                        __global const REAL* v, const int v_off, const int ldv,
                        __global const REAL* t, const int t_off, const int ldt, __global REAL* a,
                        const int a_off, const int lda, __global REAL* b, const int b_off,
                        const int ldb, const int transpose) {
  const int col = get_global_id(0);
  if (col < n)
    qr_tpmqrt_column(col, m, k, ib, v + v_off, ldv, t + t_off, ldt, a + a_off, lda, b + b_off, ldb,
                     transpose);
}

// Element-wise helpers, one work-item per entry. v (m x n) <- a: geqrt's copy of its tile, which
// the gemqrt tasks read (qr_graph.hpp).
__kernel void qr_copy_tile(const int m, const int n, __global const REAL* a, const int lda,
                           __global REAL* v, const int ldv) {
  const int r = get_global_id(0), c = get_global_id(1);
  if (r < m && c < n) v[r + (long)c * ldv] = a[r + (long)c * lda];
}

// What the blocked updates (qr_opencl_blocked_launch.cpp) do between their gemm calls.
// y (m x k, ld m) <- geqrt's reflectors with their unit diagonal and the zeros above it written out.
__kernel void qr_unit_lower(const int m, const int k, __global const REAL* v, const int v_off,
                            const int ldv, __global REAL* y) {
  const int r = get_global_id(0), c = get_global_id(1);
  if (r < m && c < k)
    y[r + (long)c * m] = r > c ? v[v_off + r + (long)c * ldv] : (r == c ? (REAL)1 : (REAL)0);
}
// tz (ib x k, ld ib) <- T with each block's strict lower part zeroed (LAPACK leaves it undefined).
__kernel void qr_upper_blocks(const int ib, const int k, __global const REAL* t, const int t_off,
                              const int ldt, __global REAL* tz) {
  const int r = get_global_id(0), c = get_global_id(1);
  if (r < ib && c < k) tz[r + (long)c * ib] = r <= c % ib ? t[t_off + r + (long)c * ldt] : (REAL)0;
}
// w (rows x n, ld rows) <- the rows x n block of a at a_off.
__kernel void qr_copy_rows(const int rows, const int n, __global const REAL* a, const int a_off,
                           const int lda, __global REAL* w) {
  const int r = get_global_id(0), c = get_global_id(1);
  if (r < rows && c < n) w[r + (long)c * rows] = a[a_off + r + (long)c * lda];
}
// The rows x n block of a at a_off -= w.
__kernel void qr_sub_rows(const int rows, const int n, __global REAL* a, const int a_off,
                          const int lda, __global const REAL* w) {
  const int r = get_global_id(0), c = get_global_id(1);
  if (r < rows && c < n) a[a_off + r + (long)c * lda] -= w[r + (long)c * rows];
}
)CLC";

const std::string& source() {
  static const std::string s = std::string(kPrelude) + kShared + "\n" + kKernels +
                               std::string(common::opencl_cpu_gemm_source());
  return s;
}

std::atomic<OpenclUpdates> updates{OpenclUpdates::Auto};

}  // namespace

std::string_view opencl_qr_source() { return source(); }
void set_opencl_updates(OpenclUpdates u) { updates.store(u); }
OpenclUpdates opencl_updates() { return updates.load(); }

std::string opencl_qr_options(bool double_precision) {
  return double_precision ? "-DREAL=double -DREAL_IS_DOUBLE=1" : "-DREAL=float";
}

}  // namespace conveyor::apps::qr
