// The OpenCL C source of the tile kernels (plain text; built with or without OpenCL).
#include <atomic>
#include <string>

#include "cholesky/opencl/cholesky_opencl_kernels.hpp"
#include "common/opencl_cpu_gemm.hpp"

namespace conveyor::apps::cholesky {

// Each work-group computes a 32 x 32 block of C with 32 x 8 work-items: work-item (r, q) owns row r
// and the four columns q, q+8, q+16, q+24, so one value of A loaded from local memory serves four
// multiply-adds. A and B advance through k in slices of 32, staged in local memory with zero
// padding at ragged edges so that the inner loop has no bounds checks. Dimension 0 runs down a
// column (the contiguous direction), so global loads and the store of C are coalesced on GPUs and
// vectorise on CPU drivers (PoCL).
constexpr const char* kSource = R"CLC(
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
#define TM 32
#define TN 32
#define TK 32
#define GQ 8

__kernel __attribute__((reqd_work_group_size(TM, GQ, 1)))
void tile_gemm_nt(const int m, const int n, const int k,
                  __global const REAL* restrict a, const int lda,
                  __global const REAL* restrict b, const int ldb,
                  __global REAL* restrict c, const int ldc) {
  __local REAL as[TK][TM];
  __local REAL bs[TK][TN];
  const int r = get_local_id(0);
  const int q = get_local_id(1);
  const int row0 = get_group_id(0) * TM;
  const int col0 = get_group_id(1) * TN;
  REAL acc[TN / GQ];
  for (int j = 0; j < TN / GQ; ++j) acc[j] = 0;

  for (int k0 = 0; k0 < k; k0 += TK) {
    for (int l = 0; l < TK / GQ; ++l) {
      const int kk = q + GQ * l;
      const int kg = k0 + kk;
      const int ra = row0 + r;
      const int rb = col0 + r;
      as[kk][r] = (ra < m && kg < k) ? a[ra + (long)kg * lda] : (REAL)0;
      bs[kk][r] = (rb < n && kg < k) ? b[rb + (long)kg * ldb] : (REAL)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TK; ++kk) {
      const REAL av = as[kk][r];
      for (int j = 0; j < TN / GQ; ++j) acc[j] += av * bs[kk][q + GQ * j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  const int row = row0 + r;
  if (row < m) {
    for (int j = 0; j < TN / GQ; ++j) {
      const int col = col0 + q + GQ * j;
      if (col < n) c[row + (long)col * ldc] -= acc[j];
    }
  }
}

// For CPU drivers (PoCL) the launcher runs the register-blocked gemm appended below
// (common/opencl_cpu_gemm.hpp) instead: they turn a work-group into loops over its work-items, and
// a barrier splits those loops, spilling every value live across it (the accumulators) to memory.

// syrk, S <- S - A A^T on S's lower triangle, with no local memory and no barrier (work-item r owns
// row r and NC consecutive columns: A read down the column, vectorised across work-items on CPU
// drivers, B as broadcasts), groups wholly above the diagonal returning at once and entries above
// it left alone.
#define NC 8
__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void tile_syrk_ln(const int n, const int k, __global const REAL* restrict a, const int lda,
                  __global REAL* restrict s, const int lds) {
  const int row = get_global_id(0);
  const int col0 = get_group_id(1) * NC;
  if (row >= n || row < col0) return;
  const int nc = min(NC, row - col0 + 1);
  REAL acc[NC];
  for (int j = 0; j < NC; ++j) acc[j] = 0;
  for (int p = 0; p < k; ++p) {
    const REAL av = a[row + (long)p * lda];
    __global const REAL* ap = a + col0 + (long)p * lda;
    for (int j = 0; j < nc; ++j) acc[j] += av * ap[j];
  }
  for (int j = 0; j < nc; ++j) s[row + (long)(col0 + j) * lds] -= acc[j];
}

// trsm, B <- B L^-T: each row of B is an independent forward substitution, x L^T = b, so
// work-item i solves row i, column after column (reads of B down a column vectorise across
// work-items on CPU drivers).
__kernel void tile_trsm_rlt(const int m, const int n, __global const REAL* restrict l,
                            const int ldl, __global REAL* restrict b, const int ldb) {
  const int row = get_global_id(0);
  if (row >= m) return;
  __global REAL* bi = b + row;
  for (int j = 0; j < n; ++j) {
    __global const REAL* lj = l + j;
    REAL x = bi[(long)j * ldb];
    for (int p = 0; p < j; ++p) x -= bi[(long)p * ldb] * lj[(long)p * ldl];
    bi[(long)j * ldb] = x / lj[(long)j * ldl];
  }
}
)CLC";

std::string_view opencl_gemm_source() {
  static const std::string source =
      std::string(kSource) + std::string(common::opencl_cpu_gemm_source());
  return source;
}

namespace {
std::atomic<OpenclGemmVariant> variant{OpenclGemmVariant::Auto};
}  // namespace

void set_opencl_gemm_variant(OpenclGemmVariant v) { variant.store(v); }
OpenclGemmVariant opencl_gemm_variant() { return variant.load(); }

std::string opencl_gemm_options(bool double_precision) {
  return double_precision ? "-DREAL=double -DREAL_IS_DOUBLE=1" : "-DREAL=float";
}

}  // namespace conveyor::apps::cholesky
