// The OpenCL C source of the register-blocked gemm for CPU devices (plain text; built with or
// without OpenCL). See common/opencl_cpu_gemm.hpp.
#include "common/opencl_cpu_gemm.hpp"

namespace conveyor::apps::common {
namespace {

// A CPU OpenCL compiler (PoCL) turns a work-group into loops over its work-items and vectorises
// across them only where a work-item's body has no loop of its own; a gemm's inner loop over k
// defeats that, and a barrier would spill every accumulator to memory. So each work-item here is
// written as a CPU BLAS micro-kernel in OpenCL's vector types: an MR x NR block of C kept in
// registers (MR = two vectors down a column, NR broadcasts of B per step of k), no local memory,
// no barrier. The work-item then sweeps a strip of NCOLS columns with k cut in chunks of KC, so
// that its A micro-panel (MR x KC) stays in the L1 cache while B streams past.
//
// The vector width follows the instruction set the compiler targets (PoCL defines the usual x86
// macros for its device): 64 bytes with AVX-512, 32 with AVX, else 16; CPU_GEMM_VBYTES, set by the
// program's options, overrides the choice (the tests build every width). NR stays 6 at every
// width: 12 accumulators, which fit AVX's 16 registers and, should the compiler split 64-byte
// vectors in two (LLVM's preference for 256-bit vectors on AVX-512 CPUs), AVX-512's 32 as 24.
constexpr const char* kSource = R"CLC(
#ifndef CPU_GEMM_VBYTES
#  if defined(__AVX512F__)
#    define CPU_GEMM_VBYTES 64
#  elif defined(__AVX__)
#    define CPU_GEMM_VBYTES 32
#  else
#    define CPU_GEMM_VBYTES 16
#  endif
#endif
#define CPU_GEMM_CAT_(a, b) a##b
#define CPU_GEMM_CAT(a, b) CPU_GEMM_CAT_(a, b)
// Lanes per vector, as a literal (it is pasted into type and function names).
#ifdef REAL_IS_DOUBLE
#  define CPU_GEMM_LANES (CPU_GEMM_VBYTES / 8)
#else
#  define CPU_GEMM_LANES (CPU_GEMM_VBYTES / 4)
#endif
#if CPU_GEMM_LANES == 2
#  define CPU_GEMM_VW 2
#elif CPU_GEMM_LANES == 4
#  define CPU_GEMM_VW 4
#elif CPU_GEMM_LANES == 8
#  define CPU_GEMM_VW 8
#else
#  define CPU_GEMM_VW 16
#endif
#define REALV CPU_GEMM_CAT(REAL, CPU_GEMM_VW)
#define VLOAD CPU_GEMM_CAT(vload, CPU_GEMM_VW)
#define VSTORE CPU_GEMM_CAT(vstore, CPU_GEMM_VW)
#define MR (2 * CPU_GEMM_VW)
#define NR 6
#define KC 256
#define NCOLS (8 * NR)

// beta c + alpha s, reading c only where beta is not zero (c may hold anything then, as in BLAS).
#define CPU_GEMM_OUT(cval, s) (beta == 0 ? alpha * (s) : fma(alpha, (s), beta * (cval)))

// One MR-row x NCOLS-column block of cpu_gemm_n (below), at row i0 and column jstart.
inline void cpu_gemm_n_block(const int i0, const int jstart, const int m, const int n,
                             const int k, const REAL alpha, __global const REAL* restrict a,
                             const int lda, __global const REAL* restrict b, const int bsp,
                             const int bsj, const REAL beta, __global REAL* restrict c,
                             const int ldc) {
  const int jend = min(n, jstart + NCOLS);
  const int rows = min(MR, m - i0);
  int j0 = jstart;
  if (rows == MR && k > 0) {
    for (int p0 = 0; p0 < k; p0 += KC) {
      const int kc = min(KC, k - p0);
      // Later chunks add to what the first one wrote.
      const REAL chunk_beta = p0 == 0 ? beta : (REAL)1;
      for (int jb = jstart; jb + NR <= jend; jb += NR) {
        REALV c0[NR], c1[NR];
#pragma unroll
        for (int j = 0; j < NR; ++j) {
          c0[j] = 0;
          c1[j] = 0;
        }
        __global const REAL* ap = a + i0 + (long)p0 * lda;
        __global const REAL* bp = b + (long)p0 * bsp + (long)jb * bsj;
        for (int p = 0; p < kc; ++p) {
          const REALV a0 = VLOAD(0, ap), a1 = VLOAD(1, ap);
#pragma unroll
          for (int j = 0; j < NR; ++j) {
            const REAL bj = bp[j * bsj];
            c0[j] = fma(a0, bj, c0[j]);
            c1[j] = fma(a1, bj, c1[j]);
          }
          ap += lda;
          bp += bsp;
        }
#pragma unroll
        for (int j = 0; j < NR; ++j) {
          __global REAL* cp = c + i0 + (long)(jb + j) * ldc;
          if (chunk_beta == 0) {
            VSTORE(alpha * c0[j], 0, cp);
            VSTORE(alpha * c1[j], 1, cp);
          } else {
            VSTORE(fma(alpha, c0[j], chunk_beta * VLOAD(0, cp)), 0, cp);
            VSTORE(fma(alpha, c1[j], chunk_beta * VLOAD(1, cp)), 1, cp);
          }
        }
      }
    }
    j0 = jstart + (jend - jstart) / NR * NR;
  }
  for (int j = j0; j < jend; ++j)
    for (int i = i0; i < i0 + rows; ++i) {
      REAL s = 0;
      for (int p = 0; p < k; ++p) s = fma(a[i + (long)p * lda], b[(long)p * bsp + (long)j * bsj], s);
      __global REAL* cp = c + i + (long)j * ldc;
      *cp = CPU_GEMM_OUT(*cp, s);
    }
}

// C(i, j) = beta C(i, j) + alpha sum_p A(i, p) B(p, j): A(i, p) = a[i + p lda] and
// B(p, j) = b[p bsp + j bsj] (N: bsp = 1, bsj = ldb; T: bsp = ldb, bsj = 1). Work-item (x, y)
// takes the blocks of MR rows x NCOLS columns at rows x MR, columns y NCOLS, and on by the range's
// size, so any range is correct (the launcher sizes it from the device's vector width); entries
// past a full MR x NR block go one at a time.
__kernel void cpu_gemm_n(const int m, const int n, const int k, const REAL alpha,
                         __global const REAL* restrict a, const int a_off, const int lda,
                         __global const REAL* restrict b, const int b_off, const int bsp,
                         const int bsj, const REAL beta, __global REAL* restrict c,
                         const int c_off, const int ldc) {
  for (int i0 = get_global_id(0) * MR; i0 < m; i0 += get_global_size(0) * MR)
    for (int j0 = get_global_id(1) * NCOLS; j0 < n; j0 += get_global_size(1) * NCOLS)
      cpu_gemm_n_block(i0, j0, m, n, k, alpha, a + a_off, lda, b + b_off, bsp, bsj, beta,
                       c + c_off, ldc);
}

// The sum of a vector's lanes.
inline REAL cpu_gemm_lanes(const REALV v) {
#if CPU_GEMM_VW == 16
  const CPU_GEMM_CAT(REAL, 8) h = v.lo + v.hi;
  const CPU_GEMM_CAT(REAL, 4) q = h.lo + h.hi;
#elif CPU_GEMM_VW == 8
  const CPU_GEMM_CAT(REAL, 4) q = v.lo + v.hi;
#elif CPU_GEMM_VW == 4
  const CPU_GEMM_CAT(REAL, 4) q = v;
#endif
#if CPU_GEMM_VW == 2
  return v.s0 + v.s1;
#else
  return (q.s0 + q.s1) + (q.s2 + q.s3);
#endif
}

// One TI-row x NCOLS-column block of cpu_gemm_tn (below), at row i0 and column jstart: TI x TJ dot
// products kept as vectors along p, their lanes summed at the end.
#define TI 4
#define TJ 3
inline void cpu_gemm_tn_block(const int i0, const int jstart, const int m, const int n,
                              const int k, const REAL alpha, __global const REAL* restrict a,
                              const int lda, __global const REAL* restrict b, const int ldb,
                              const REAL beta, __global REAL* restrict c, const int ldc) {
  const int jend = min(n, jstart + NCOLS);
  const int rows = min(TI, m - i0);
  const int kv = k / CPU_GEMM_VW * CPU_GEMM_VW;
  int j0 = jstart;
  if (rows == TI) {
    for (; j0 + TJ <= jend; j0 += TJ) {
      REALV s[TI][TJ];
#pragma unroll
      for (int i = 0; i < TI; ++i)
#pragma unroll
        for (int j = 0; j < TJ; ++j) s[i][j] = 0;
      for (int p = 0; p < kv; p += CPU_GEMM_VW) {
        REALV av[TI], bv[TJ];
#pragma unroll
        for (int i = 0; i < TI; ++i) av[i] = VLOAD(0, a + p + (long)(i0 + i) * lda);
#pragma unroll
        for (int j = 0; j < TJ; ++j) bv[j] = VLOAD(0, b + p + (long)(j0 + j) * ldb);
#pragma unroll
        for (int i = 0; i < TI; ++i)
#pragma unroll
          for (int j = 0; j < TJ; ++j) s[i][j] = fma(av[i], bv[j], s[i][j]);
      }
#pragma unroll
      for (int i = 0; i < TI; ++i)
#pragma unroll
        for (int j = 0; j < TJ; ++j) {
          __global const REAL* ai = a + (long)(i0 + i) * lda;
          __global const REAL* bj = b + (long)(j0 + j) * ldb;
          REAL t = cpu_gemm_lanes(s[i][j]);
          for (int p = kv; p < k; ++p) t = fma(ai[p], bj[p], t);
          __global REAL* cp = c + i0 + i + (long)(j0 + j) * ldc;
          *cp = CPU_GEMM_OUT(*cp, t);
        }
    }
  }
  for (int j = j0; j < jend; ++j)
    for (int i = i0; i < i0 + rows; ++i) {
      __global const REAL* ai = a + (long)i * lda;
      __global const REAL* bj = b + (long)j * ldb;
      REAL t = 0;
      for (int p = 0; p < k; ++p) t = fma(ai[p], bj[p], t);
      __global REAL* cp = c + i + (long)j * ldc;
      *cp = CPU_GEMM_OUT(*cp, t);
    }
}

// C(i, j) = beta C(i, j) + alpha sum_p A(p, i) B(p, j), A(p, i) = a[p + i lda] and
// B(p, j) = b[p + j ldb] (A transposed, B not): both run down their columns. Work-item (x, y) takes
// the blocks of TI rows x NCOLS columns at rows x TI, columns y NCOLS, and on by the range's size.
__kernel void cpu_gemm_tn(const int m, const int n, const int k, const REAL alpha,
                          __global const REAL* restrict a, const int a_off, const int lda,
                          __global const REAL* restrict b, const int b_off, const int ldb,
                          const REAL beta, __global REAL* restrict c, const int c_off,
                          const int ldc) {
  for (int i0 = get_global_id(0) * TI; i0 < m; i0 += get_global_size(0) * TI)
    for (int j0 = get_global_id(1) * NCOLS; j0 < n; j0 += get_global_size(1) * NCOLS)
      cpu_gemm_tn_block(i0, j0, m, n, k, alpha, a + a_off, lda, b + b_off, ldb, beta, c + c_off,
                        ldc);
}
#undef TI
#undef TJ
#undef MR
#undef NR
#undef KC
#undef NCOLS
#undef REALV
#undef VLOAD
#undef VSTORE
)CLC";

}  // namespace

std::string_view opencl_cpu_gemm_source() { return kSource; }

}  // namespace conveyor::apps::common
