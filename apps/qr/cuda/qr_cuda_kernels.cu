// The CUDA QR tile kernels (built when CMake found the CUDA toolkit), their flops in cuSOLVER and
// cuBLAS (docs/qr.md, "On devices"):
//
//   geqrt   cuSOLVER geqrf on the tile, then T by blocks of ib (below)
//   tpqrt   cuSOLVER geqrf on the stacked pair [triu(R); B] ((n + m) x n, in the workspace): R's
//           upper triangle and B's rows come back, R's lower triangle (geqrt's reflectors) is left
//           alone; then T by blocks of ib. The stacked reflectors are e_j on top (the zeros below
//           R's diagonal stay exactly zero: every update of those rows adds a multiple of them), so
//           they are tpqrt's (l = 0), computed by cuSOLVER's blocked geqrf.
//   gemqrt, tpmqrt   blocked WY updates, each block W = V^T C (gemm), W = T^T W (trmm), C -= V W
//           (gemm), in blocks of kMergedBlock reflectors rather than ib: their T is rebuilt from
//           the tau on the stored T's diagonal, so that the gemms are wide enough to run at the
//           GPU's rate (ib = 32 would make them rank-32 updates, memory-bound) and a task is a few
//           calls.
//
// T of a block (larft, forward, columnwise) from the Gram matrix G = V^T V of its reflectors
// (one strided-batched gemm for all blocks) and tau: T^-1 = diag(1/tau) + striu(G) (Puglisi 1992;
// Joffrain et al. 2006), solved as T = (I + diag(tau) striu(G))^-1 diag(tau) so that tau = 0
// (H = I) needs no division and gives LAPACK's zero row and column. Equal to larft's recurrence in
// exact arithmetic.
//
// Everything is enqueued on the task's stream (the handles are bound to it) and nothing waits:
// cuSOLVER's devInfo is not read (geqrf reports only illegal arguments there). The workspace is
// cached per stream (qr_cuda_library.hpp), so a task allocates nothing once a tile shape has run.
// Compiled here; first run on a GPU by scripts/gpu-check.sh (the "qr" section).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "conveyor/error.hpp"
#include "qr/cuda/qr_cuda_kernels.hpp"
#include "qr/cuda/qr_cuda_library.hpp"
#include "qr/update_blocks.hpp"

namespace conveyor::apps::qr {
namespace {

namespace lib = cuda_library;
using lib::check;

/// Reflectors per block in gemqrt and tpmqrt (whatever ib the factors were stored with).
constexpr int kMergedBlock = 128;
constexpr int kThreads = 256;
/// Warps per block of triangular_factors (one column of T each).
constexpr int kFactorWarps = 4;
/// Dynamic shared memory a launch may take without opting in.
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// Blocks of kThreads for a grid-stride loop over `count` (>= 1) elements.
unsigned blocks_for(long long count) {
  return static_cast<unsigned>(std::min<long long>((count + kThreads - 1) / kThreads, 4096));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// vs (m x kpad, ld m) = the k reflectors of v, explicit: a unit diagonal and zeros above it
// (`unit`: geqrt's storage, R above the diagonal) or v's columns as they are (tpqrt's, l = 0:
// their unit parts lie in the triangle above and are orthogonal to each other); then zero columns
// up to kpad, so that every block of the batched gemm below is whole.
template <typename T>
__global__ void explicit_reflectors(int m, int k, int kpad, int unit, const T* __restrict__ v,
                                    int ldv, T* __restrict__ vs) {
  const long long count = static_cast<long long>(m) * kpad;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(e % m), c = static_cast<int>(e / m);
    T x = T(0);
    if (c < k) {
      if (!unit || r > c)
        x = v[r + static_cast<long long>(c) * ldv];
      else if (r == c)
        x = T(1);
    }
    vs[e] = x;
  }
}

// T of each block of nb of the k reflectors: block j (columns i0 = j nb .. i0 + b) from its Gram
// matrix g + j nb^2 (nb x nb, ld nb, symmetric) and tau(i) = tau[(i % tau_nb) + i tau_ld] (a
// vector: 1, 1; a stored T's diagonal: ib, ldt). X = T_j solves (I + diag(tau) striu(G)) X =
// diag(tau), row by row from the diagonal up: X(i,i) = tau_i, X(q,i) = -tau_q sum_{p=q+1..i}
// G(q,p) X(p,i). Columns are independent: one warp each (blockIdx.y and the warp pick it), its
// lanes splitting each sum (G(q,p) read as G(p,q), down a column), the column kept in shared
// memory when `shared_x` (kFactorWarps x nb elements of dynamic shared memory) and in t itself
// otherwise. Writes the upper triangle of each block, t(0:i+1, i0 + i), only.
template <typename T>
__global__ void triangular_factors(int k, int nb, const T* __restrict__ g, const T* tau, int tau_nb,
                                   int tau_ld, T* t, int ldt, int shared_x) {
  extern __shared__ __align__(8) unsigned char scratch[];  // bytes: its type is per instantiation
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int i0 = blockIdx.x * nb;
  const int b = min(nb, k - i0);
  const int i = blockIdx.y * (blockDim.x / 32) + warp;
  if (i >= b) return;  // the whole warp (i is the same for its lanes); no block-wide barrier below
  const T* gj = g + static_cast<long long>(blockIdx.x) * nb * nb;
  auto tau_of = [&](int c) { return tau[(c % tau_nb) + static_cast<long long>(c) * tau_ld]; };
  T* column = t + static_cast<long long>(i0 + i) * ldt;
  T* x = shared_x ? reinterpret_cast<T*>(scratch) + static_cast<long long>(warp) * nb : column;
  if (lane == 0) x[i] = tau_of(i0 + i);
  __syncwarp();  // orders lane 0's store before the other lanes' loads (shared or global)
  for (int q = i - 1; q >= 0; --q) {
    T s = T(0);
    for (int p = q + 1 + lane; p <= i; p += 32) s += gj[p + static_cast<long long>(q) * nb] * x[p];
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) x[q] = -tau_of(i0 + q) * s;
    __syncwarp();
  }
  if (shared_x)
    for (int q = lane; q <= i; q += 32) column[q] = x[q];
}

// s ((n + m) x n, ld n + m) = [triu(r); b]: r n x n, b m x n.
template <typename T>
__global__ void stack_pair(int m, int n, const T* __restrict__ r, int ldr, const T* __restrict__ b,
                           int ldb, T* __restrict__ s) {
  const int ls = n + m;
  const long long count = static_cast<long long>(ls) * n;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(e % ls), col = static_cast<int>(e / ls);
    T x = T(0);
    if (row >= n)
      x = b[(row - n) + static_cast<long long>(col) * ldb];
    else if (row <= col)
      x = r[row + static_cast<long long>(col) * ldr];
    s[e] = x;
  }
}

// The factored pair back: s's upper triangle to r's (its strict lower triangle untouched), s's
// lower m rows to b.
template <typename T>
__global__ void unstack_pair(int m, int n, const T* __restrict__ s, T* __restrict__ r, int ldr,
                             T* __restrict__ b, int ldb) {
  const int ls = n + m;
  const long long count = static_cast<long long>(ls) * n;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(e % ls), col = static_cast<int>(e / ls);
    if (row >= n)
      b[(row - n) + static_cast<long long>(col) * ldb] = s[e];
    else if (row <= col)
      r[row + static_cast<long long>(col) * ldr] = s[e];
  }
}

// Byte offsets of the pieces of one task's workspace, each aligned to 256 bytes.
class Layout {
 public:
  template <typename T>
  std::size_t add(std::size_t count) {
    const std::size_t at = (bytes_ + 255) / 256 * 256;
    bytes_ = at + count * sizeof(T);
    return at;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

template <typename T>
T* at(void* base, std::size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

int blocks_of(int k, int nb) { return (k + nb - 1) / nb; }

// The workspace of factors() for m rows, k reflectors in blocks of nb.
struct FactorSpace {
  std::size_t vs, gram;
};
template <typename T>
FactorSpace add_factor_space(Layout& layout, int m, int k, int nb) {
  const std::size_t kpad = static_cast<std::size_t>(blocks_of(k, nb)) * nb;
  return {layout.add<T>(static_cast<std::size_t>(m) * kpad),
          layout.add<T>(static_cast<std::size_t>(nb) * kpad)};
}

// T (by blocks of nb, into t with ldt) of the k reflectors in v (m rows, ld ldv; `unit` as for
// explicit_reflectors) with tau as for triangular_factors. Leaves the explicit reflectors in vs
// (m x kpad, ld m), which the updates use.
template <typename T>
void factors(lib::StreamContext& ctx, int m, int k, int nb, const T* v, int ldv, bool unit,
             const T* tau, int tau_nb, int tau_ld, T* vs, T* gram, T* t, int ldt) {
  const int count = blocks_of(k, nb);
  const int kpad = count * nb;
  explicit_reflectors<T>
      <<<blocks_for(static_cast<long long>(m) * kpad), kThreads, 0, ctx.stream()>>>(
          m, k, kpad, unit ? 1 : 0, v, ldv, vs);
  check_launch("explicit_reflectors");
  const long long stride = static_cast<long long>(nb) * m;
  CONVEYOR_QR_CHECK(lib::gemm_strided_batched(ctx.blas(), CUBLAS_OP_T, CUBLAS_OP_N, nb, nb, m, T(1),
                                              vs, m, stride, vs, m, stride, T(0), gram, nb,
                                              static_cast<long long>(nb) * nb, count));
  const std::size_t shared_bytes = sizeof(T) * kFactorWarps * static_cast<std::size_t>(nb);
  const bool shared_x = shared_bytes <= kDefaultSharedBytes;
  const dim3 grid(static_cast<unsigned>(count), static_cast<unsigned>(blocks_of(nb, kFactorWarps)));
  triangular_factors<T><<<grid, 32 * kFactorWarps, shared_x ? shared_bytes : 0, ctx.stream()>>>(
      k, nb, gram, tau, tau_nb, tau_ld, t, ldt, shared_x ? 1 : 0);
  check_launch("triangular_factors");
}

void require(bool ok, const char* kernel, const char* what) {
  if (!ok) throw Error(std::string("CUDA qr: ") + kernel + ": " + what);
}

}  // namespace

bool cuda_kernels_available() { return true; }

template <typename T>
void cuda_geqrt(void* stream, int m, int n, int ib, T* a, int lda, T* t, int ldt, T* v, int ldv) {
  require(m > 0 && n > 0 && ib > 0 && lda >= m && ldv >= m, "geqrt", "bad tile shape");
  lib::StreamContext& ctx = lib::context_for(stream);
  const int k = std::min(m, n), nb = std::min(ib, k);
  require(ldt >= nb, "geqrt", "T has fewer rows than ib");
  const int lwork = ctx.geqrf_lwork<T>(m, n, a, lda);
  Layout layout;
  const std::size_t tau_at = layout.add<T>(static_cast<std::size_t>(k));
  const std::size_t work_at = layout.add<T>(static_cast<std::size_t>(std::max(lwork, 1)));
  const FactorSpace f = add_factor_space<T>(layout, m, k, nb);
  void* base = ctx.workspace(layout.bytes());
  T* tau = at<T>(base, tau_at);

  CONVEYOR_QR_CHECK(
      lib::geqrf(ctx.solver(), m, n, a, lda, tau, at<T>(base, work_at), lwork, ctx.info()));
  // The copy the gemqrt tasks read (graph.hpp), R and all.
  CONVEYOR_QR_CHECK(cudaMemcpy2DAsync(v, sizeof(T) * ldv, a, sizeof(T) * lda, sizeof(T) * m, n,
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
  factors<T>(ctx, m, k, nb, a, lda, true, tau, 1, 1, at<T>(base, f.vs), at<T>(base, f.gram), t,
             ldt);
}

template <typename T>
void cuda_tpqrt(void* stream, int m, int n, int ib, T* r, int ldr, T* b, int ldb, T* t, int ldt) {
  require(m > 0 && n > 0 && ib > 0 && ldr >= n && ldb >= m, "tpqrt", "bad tile shape");
  lib::StreamContext& ctx = lib::context_for(stream);
  const int ls = n + m, nb = std::min(ib, n);
  require(ldt >= nb, "tpqrt", "T has fewer rows than ib");
  const int lwork = ctx.geqrf_lwork<T>(ls, n, b, ls);
  Layout layout;
  const std::size_t s_at = layout.add<T>(static_cast<std::size_t>(ls) * n);
  const std::size_t tau_at = layout.add<T>(static_cast<std::size_t>(n));
  const std::size_t work_at = layout.add<T>(static_cast<std::size_t>(std::max(lwork, 1)));
  const FactorSpace f = add_factor_space<T>(layout, m, n, nb);
  void* base = ctx.workspace(layout.bytes());
  T* s = at<T>(base, s_at);
  T* tau = at<T>(base, tau_at);

  const unsigned grid = blocks_for(static_cast<long long>(ls) * n);
  stack_pair<T><<<grid, kThreads, 0, ctx.stream()>>>(m, n, r, ldr, b, ldb, s);
  check_launch("stack_pair");
  CONVEYOR_QR_CHECK(
      lib::geqrf(ctx.solver(), ls, n, s, ls, tau, at<T>(base, work_at), lwork, ctx.info()));
  unstack_pair<T><<<grid, kThreads, 0, ctx.stream()>>>(m, n, s, r, ldr, b, ldb);
  check_launch("unstack_pair");
  factors<T>(ctx, m, n, nb, b, ldb, false, tau, 1, 1, at<T>(base, f.vs), at<T>(base, f.gram), t,
             ldt);
}

// What gemqrt and tpmqrt share: V with its unit diagonal written out (vs), the T factors of blocks
// of kb reflectors rebuilt from v and the tau on t's diagonal (tf, kb x kb each), and two kb x n
// blocks for W, all in the stream's workspace. `unit`: v holds geqrt's unit lower triangle.
template <typename T>
struct UpdateSpace {
  int kb;
  T *vs, *tf, *w, *w2;
};

template <typename T>
UpdateSpace<T> update_space(lib::StreamContext& ctx, int m, int n, int k, int ib, const T* v,
                            int ldv, bool unit, const T* t, int ldt) {
  const int kb = std::min(kMergedBlock, k);
  const std::size_t kpad = static_cast<std::size_t>(blocks_of(k, kb)) * kb;
  Layout layout;
  const FactorSpace f = add_factor_space<T>(layout, m, k, kb);
  const std::size_t tf_at = layout.add<T>(static_cast<std::size_t>(kb) * kpad);
  const std::size_t w_at = layout.add<T>(static_cast<std::size_t>(kb) * n);
  const std::size_t w2_at = layout.add<T>(static_cast<std::size_t>(kb) * n);
  void* base = ctx.workspace(layout.bytes());
  UpdateSpace<T> s{kb, at<T>(base, f.vs), at<T>(base, tf_at), at<T>(base, w_at),
                   at<T>(base, w2_at)};
  factors<T>(ctx, m, k, kb, v, ldv, unit, t, ib, ldt, s.vs, at<T>(base, f.gram), s.tf, kb);
  return s;
}

template <typename T>
void cuda_gemqrt(void* stream, bool transpose, int m, int n, int k, int ib, const T* v, int ldv,
                 const T* t, int ldt, T* c, int ldc) {
  require(
      m > 0 && n > 0 && k > 0 && k <= m && ib > 0 && ldv >= m && ldc >= m && ldt >= std::min(ib, k),
      "gemqrt", "bad tile shape");
  lib::StreamContext& ctx = lib::context_for(stream);
  const auto [kb, vs, tf, w, w2] = update_space<T>(ctx, m, n, k, ib, v, ldv, true, t, ldt);
  // C <- (I - V_j T_j^T V_j^T) C for j = 0, 1, ... (Q: (I - V_j T_j V_j^T) C, the last j first):
  // rows above i0 are not touched (V_j is zero there), and vs holds V_j's unit diagonal and zeros
  // explicitly.
  const cublasOperation_t t_op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int blocks = update_blocks(k, kb);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, kb);
    const int width = std::min(kb, k - i0), rows = m - i0;
    const T* vj = vs + i0 + static_cast<std::size_t>(i0) * m;
    T* cj = c + i0;
    CONVEYOR_QR_CHECK(lib::gemm(ctx.blas(), CUBLAS_OP_T, CUBLAS_OP_N, width, n, rows, T(1), vj, m,
                                cj, ldc, T(0), w, kb));
    CONVEYOR_QR_CHECK(lib::trmm(ctx.blas(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, t_op,
                                CUBLAS_DIAG_NON_UNIT, width, n, T(1),
                                tf + static_cast<std::size_t>(i0) * kb, kb, w, kb, w2, kb));
    CONVEYOR_QR_CHECK(lib::gemm(ctx.blas(), CUBLAS_OP_N, CUBLAS_OP_N, rows, n, width, T(-1), vj, m,
                                w2, kb, T(1), cj, ldc));
  }
}

template <typename T>
void cuda_tpmqrt(void* stream, bool transpose, int m, int n, int k, int ib, const T* v, int ldv,
                 const T* t, int ldt, T* a, int lda, T* b, int ldb) {
  require(m > 0 && n > 0 && k > 0 && ib > 0 && ldv >= m && lda >= k && ldb >= m &&
              ldt >= std::min(ib, k),
          "tpmqrt", "bad tile shape");
  lib::StreamContext& ctx = lib::context_for(stream);
  const auto [kb, vs, tf, w, w2] = update_space<T>(ctx, m, n, k, ib, v, ldv, false, t, ldt);
  // [A; B] <- (I - V_j T_j^T V_j^T) [A; B], V_j = [rows i0.. of the identity; v's columns]:
  // W = A(i0:i0+width, :) + V^T B, W2 = T_j^T W, A(i0:i0+width, :) -= W2, B -= V W2 (Q: T_j W, the
  // blocks last first).
  const cublasOperation_t t_op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int blocks = update_blocks(k, kb);
  for (int step = 0; step < blocks; ++step) {
    const int i0 = update_block_start(transpose, step, blocks, kb);
    const int width = std::min(kb, k - i0);
    const T* vj = vs + static_cast<std::size_t>(i0) * m;
    T* aj = a + i0;
    CONVEYOR_QR_CHECK(cudaMemcpy2DAsync(w, sizeof(T) * kb, aj, sizeof(T) * lda, sizeof(T) * width,
                                        n, cudaMemcpyDeviceToDevice, ctx.stream()));
    CONVEYOR_QR_CHECK(lib::gemm(ctx.blas(), CUBLAS_OP_T, CUBLAS_OP_N, width, n, m, T(1), vj, m, b,
                                ldb, T(1), w, kb));
    CONVEYOR_QR_CHECK(lib::trmm(ctx.blas(), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, t_op,
                                CUBLAS_DIAG_NON_UNIT, width, n, T(1),
                                tf + static_cast<std::size_t>(i0) * kb, kb, w, kb, w2, kb));
    CONVEYOR_QR_CHECK(lib::geam(ctx.blas(), width, n, T(1), aj, lda, T(-1), w2, kb, aj, lda));
    CONVEYOR_QR_CHECK(lib::gemm(ctx.blas(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, width, T(-1), vj, m, w2,
                                kb, T(1), b, ldb));
  }
}

#define CONVEYOR_INSTANTIATE(T)                                                                   \
  template void cuda_geqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_gemqrt<T>(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, \
                               int);                                                              \
  template void cuda_tpqrt<T>(void*, int, int, int, T*, int, T*, int, T*, int);                   \
  template void cuda_tpmqrt<T>(void*, bool, int, int, int, int, const T*, int, const T*, int, T*, \
                               int, T*, int);
CONVEYOR_INSTANTIATE(float)
CONVEYOR_INSTANTIATE(double)
#undef CONVEYOR_INSTANTIATE

}  // namespace conveyor::apps::qr
