// The fused TS update (fused_ts_update.hpp). For each panel of columns of [A; B], each block of
// reflectors p (ib of them, V_p = V[:, p:p+kb], T_p its triangular factor) in turn:
//
//   W = V_p^T B            register-blocked outer products over the rows of B, V packed by rows
//   W = op(T_p) (A_p + W)  op = transpose for Q^T; A_p the kb rows of A this block reaches
//   A_p -= W
//   B  -= V_p W            register-blocked over the rows of B, reading V where it lies
//
// which is LAPACK's blocked WY update (?tprfb) column panel by column panel: the columns of the
// update are independent, so a panel of B stays in cache for all the blocks instead of the whole
// tile streaming through a gemm call (and its packing) twice per block.
#include "qr/fused_ts_update.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/thread_scratch.hpp"
#include "conveyor/error.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONVEYOR_FUSED_TS_UPDATE 1
#include <immintrin.h>
#endif

namespace conveyor::apps::qr {

namespace {
// On a CPU with AVX-512, OpenBLAS's gemm runs twice this kernel's vector width: LAPACK's update
// stays the choice there.
bool cpu_has_avx512();
}  // namespace

bool fused_ts_update_chosen() {
  static const bool chosen = [] {
    const char* choice = std::getenv("CONVEYOR_QR_TS_UPDATE");
    const std::string value = choice ? choice : "fused";
    if (value != "fused" && value != "lapack")
      throw UsageError("CONVEYOR_QR_TS_UPDATE: '" + value + "' is not one of fused, lapack");
    return value == "fused" && fused_ts_update_available() && !cpu_has_avx512();
  }();
  return chosen;
}

std::size_t core_l2_bytes() {
  static const std::size_t bytes = [] {
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return reported > 0 ? static_cast<std::size_t>(reported) : std::size_t{512} << 10;
  }();
  return bytes;
}

#ifdef CONVEYOR_FUSED_TS_UPDATE

bool fused_ts_update_available() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return available;
}

namespace {
bool cpu_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
}  // namespace

namespace {

#define CONVEYOR_AVX2 __attribute__((target("avx2,fma")))
#define CONVEYOR_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

// The vector operations by precision, so that the kernels are written once.
struct Doubles {
  using T = double;
  using V = __m256d;
  static constexpr int lanes = 4;
  CONVEYOR_AVX2_INLINE static V zero() { return _mm256_setzero_pd(); }
  CONVEYOR_AVX2_INLINE static V load(const T* p) { return _mm256_loadu_pd(p); }
  CONVEYOR_AVX2_INLINE static void store(T* p, V x) { _mm256_storeu_pd(p, x); }
  CONVEYOR_AVX2_INLINE static V splat(T x) { return _mm256_set1_pd(x); }
  CONVEYOR_AVX2_INLINE static V sum(V x, V y) { return _mm256_add_pd(x, y); }
  // x[i] holds element i of 4 vectors <- x[i] holds vector i (a 4 x 4 transpose)
  CONVEYOR_AVX2_INLINE static void transpose(V* x) {
    const V t0 = _mm256_unpacklo_pd(x[0], x[1]), t1 = _mm256_unpackhi_pd(x[0], x[1]);
    const V t2 = _mm256_unpacklo_pd(x[2], x[3]), t3 = _mm256_unpackhi_pd(x[2], x[3]);
    x[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    x[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    x[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    x[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
  CONVEYOR_AVX2_INLINE static V plus_product(V x, V y, V acc) { return _mm256_fmadd_pd(x, y, acc); }
  CONVEYOR_AVX2_INLINE static V minus_product(V x, V y, V acc) {
    return _mm256_fnmadd_pd(x, y, acc);
  }
};
struct Floats {
  using T = float;
  using V = __m256;
  static constexpr int lanes = 8;
  CONVEYOR_AVX2_INLINE static V zero() { return _mm256_setzero_ps(); }
  CONVEYOR_AVX2_INLINE static V load(const T* p) { return _mm256_loadu_ps(p); }
  CONVEYOR_AVX2_INLINE static void store(T* p, V x) { _mm256_storeu_ps(p, x); }
  CONVEYOR_AVX2_INLINE static V splat(T x) { return _mm256_set1_ps(x); }
  CONVEYOR_AVX2_INLINE static V sum(V x, V y) { return _mm256_add_ps(x, y); }
  // An 8 x 8 transpose, as Doubles::transpose.
  CONVEYOR_AVX2_INLINE static void transpose(V* x) {
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(x[i], x[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(x[i], x[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; ++i) {
      x[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
      x[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
  }
  CONVEYOR_AVX2_INLINE static V plus_product(V x, V y, V acc) { return _mm256_fmadd_ps(x, y, acc); }
  CONVEYOR_AVX2_INLINE static V minus_product(V x, V y, V acc) {
    return _mm256_fnmadd_ps(x, y, acc);
  }
};
template <typename T>
struct SimdOf;
template <>
struct SimdOf<double> {
  using type = Doubles;
};
template <>
struct SimdOf<float> {
  using type = Floats;
};

// Columns of B per panel, and per register block (with two vectors of rows: 12 accumulators of the
// 16 registers, two for the rows loaded, one for the broadcast).
constexpr int kPanel = 24;
constexpr int kColumns = 6;
// Rows of B per chunk of the products W = V_p^T B: a sliver's chunk (256 x 8 doubles, 16 KiB).
constexpr int kRows = 256;

int round_up(int x, int to) { return (x + to - 1) / to * to; }

// w[0 : RV*lanes, 0 : J] (+)= vt^T b[:, 0 : J] over m rows, vt a sliver of V_p packed by rows (a
// row's RV*lanes reflectors contiguous, the next row ldvt further on); `add` keeps what w holds.
template <class S, int RV, int J>
CONVEYOR_AVX2_INLINE void vt_times_b(int m, const typename S::T* vt, int ldvt,
                                     const typename S::T* b, int ldb, typename S::T* w, int ldw,
                                     bool add) {
  typename S::V acc[RV][J];
  for (int q = 0; q < RV; ++q)
    for (int j = 0; j < J; ++j) acc[q][j] = add ? S::load(w + q * S::lanes + j * ldw) : S::zero();
  for (int r = 0; r < m; ++r) {
    typename S::V x[RV];
    for (int q = 0; q < RV; ++q)
      x[q] = S::load(vt + static_cast<std::size_t>(r) * ldvt + q * S::lanes);
    for (int j = 0; j < J; ++j) {
      const typename S::V s = S::splat(b[r + static_cast<std::size_t>(j) * ldb]);
      for (int q = 0; q < RV; ++q) acc[q][j] = S::plus_product(x[q], s, acc[q][j]);
    }
  }
  for (int q = 0; q < RV; ++q)
    for (int j = 0; j < J; ++j) S::store(w + q * S::lanes + j * ldw, acc[q][j]);
}

// c[0 : RV*lanes, 0 : J] -= v[0 : RV*lanes, 0 : kb] w[0 : kb, 0 : J], all column-major; with
// `add` false, c = -v w. From zero, c added at the end: its loads (from L2) then overlap the
// products.
template <class S, int RV, int J, bool add = true>
CONVEYOR_AVX2_INLINE void minus_v_times_w(int kb, const typename S::T* v, int ldv,
                                          const typename S::T* w, int ldw, typename S::T* c,
                                          int ldc) {
  typename S::V acc[RV][J];
  for (int j = 0; j < J; ++j)
    for (int q = 0; q < RV; ++q) acc[q][j] = S::zero();
  for (int p = 0; p < kb; ++p) {
    typename S::V x[RV];
    for (int q = 0; q < RV; ++q)
      x[q] = S::load(v + q * S::lanes + static_cast<std::size_t>(p) * ldv);
    for (int j = 0; j < J; ++j) {
      const typename S::V s = S::splat(w[p + j * ldw]);
      for (int q = 0; q < RV; ++q) acc[q][j] = S::minus_product(x[q], s, acc[q][j]);
    }
  }
  for (int j = 0; j < J; ++j)
    for (int q = 0; q < RV; ++q) {
      typename S::T* at = c + q * S::lanes + static_cast<std::size_t>(j) * ldc;
      S::store(at, add ? S::sum(S::load(at), acc[q][j]) : acc[q][j]);
    }
}
// The rows of c below the last whole sliver (fewer than 2 vectors) for J columns: one vector of
// rows, then one row at a time; v column-major where it lies.
template <class S, int J>
CONVEYOR_AVX2_INLINE void last_rows_minus_v_times_w(int first, int m, int kb,
                                                    const typename S::T* v, int ldv,
                                                    const typename S::T* w, int ldw,
                                                    typename S::T* c, int ldc) {
  constexpr int L = S::lanes;
  int r = first;
  if (r + L <= m) {
    minus_v_times_w<S, 1, J>(kb, v + r, ldv, w, ldw, c + r, ldc);
    r += L;
  }
  for (; r < m; ++r)
    for (int j = 0; j < J; ++j) {
      typename S::T s = c[r + static_cast<std::size_t>(j) * ldc];
      for (int p = 0; p < kb; ++p) s -= v[r + static_cast<std::size_t>(p) * ldv] * w[p + j * ldw];
      c[r + static_cast<std::size_t>(j) * ldc] = s;
    }
}

// The register blocks with two vectors of rows, as kernels<S, J> for CONVEYOR_FOR_COLUMNS.
template <class S, int J>
CONVEYOR_AVX2_INLINE void vt_times_b_columns(int m, const typename S::T* vt, int ldvt,
                                             const typename S::T* b, int ldb, typename S::T* w,
                                             int ldw, bool add) {
  vt_times_b<S, 2, J>(m, vt, ldvt, b, ldb, w, ldw, add);
}
template <class S, int J>
CONVEYOR_AVX2_INLINE void minus_v_times_w_sliver(int kb, const typename S::T* v, int ldv,
                                                 const typename S::T* w, int ldw, typename S::T* c,
                                                 int ldc) {
  minus_v_times_w<S, 2, J>(kb, v, ldv, w, ldw, c, ldc);
}

// W2 = op(T_p) W from -op(T_p).
template <class S, int J>
CONVEYOR_AVX2_INLINE void op_t_times_w(int kb, const typename S::T* op, int ldo,
                                       const typename S::T* w, int ldw, typename S::T* c, int ldc) {
  minus_v_times_w<S, 2, J, false>(kb, op, ldo, w, ldw, c, ldc);
}

// kernel<S, J>(args...) for J = columns (1 <= columns <= kColumns).
// clang-format off
#define CONVEYOR_FOR_COLUMNS(kernel, columns, ...) \
  switch (columns) {                               \
    case 1: kernel<S, 1>(__VA_ARGS__); break;      \
    case 2: kernel<S, 2>(__VA_ARGS__); break;      \
    case 3: kernel<S, 3>(__VA_ARGS__); break;      \
    case 4: kernel<S, 4>(__VA_ARGS__); break;      \
    case 5: kernel<S, 5>(__VA_ARGS__); break;      \
    default: kernel<S, 6>(__VA_ARGS__); break;     \
  }
// clang-format on

template <class S>
CONVEYOR_AVX2 void fused(bool transpose, int m, int n, int k, int ib, const typename S::T* v,
                         int ldv, const typename S::T* t, int ldt, typename S::T* a, int lda,
                         typename S::T* b, int ldb) {
  using T = typename S::T;
  constexpr int L = S::lanes, sliver = 2 * L;
  const int blocks = (k + ib - 1) / ib;
  const int ldo = round_up(ib, sliver);  // rows of W, and of each block's op(T_p)
  // V_p^T by slivers of 2 vectors of reflectors, each sliver's rows contiguous: the products
  // W = V_p^T B stream a sliver (m x 16 or 32 values, in L1) once per block of columns; zeros
  // past a block's last reflector.
  T* vt = common::thread_scratch<T, 0>(static_cast<std::size_t>(blocks) * ldo * m);
  // V_p by slivers of 2 vectors of rows, each sliver's reflectors contiguous (kb x 16 or 32
  // values): B -= V_p W reads a sliver from L1 for every block of columns. (V itself, with a
  // leading dimension of a power of two, maps a sliver's reflectors to two sets of the L1 cache.)
  const int rows_in_slivers = m / sliver * sliver;
  T* vs = common::thread_scratch<T, 4>(static_cast<std::size_t>(blocks) * rows_in_slivers * ib);
  // -op(T_p) of every block, ldo x kb, zeros outside the triangle: op(T_p) W is then the same
  // register-blocked product as B -= V_p W.
  T* op_t = common::thread_scratch<T, 1>(static_cast<std::size_t>(ldo) * k);
  for (int p = 0; p < k; p += ib) {
    const int kb = std::min(ib, k - p);
    T* block = vt + static_cast<std::size_t>(p / ib) * ldo * m;
    T* slivers = vs + static_cast<std::size_t>(p / ib) * rows_in_slivers * ib;
    // A sliver of reflector l's rows r.. (r a multiple of L, below rows_in_slivers) in vs.
    auto in_slivers = [&](int l, int r) {
      return slivers + static_cast<std::size_t>(r - r % sliver) * ib + l * sliver + r % sliver;
    };
    for (int i0 = 0; i0 < ldo; i0 += L) {
      // L reflectors at a time, V read once: L x L blocks go to vs as they are and to vt
      // transposed in registers; the last rows, and a block's last reflectors, one by one.
      const int columns = std::max(0, std::min(L, kb - i0));
      T* to = block + static_cast<std::size_t>(i0 / sliver) * sliver * m + i0 % sliver;
      const T* from = v + static_cast<std::size_t>(p + i0) * ldv;
      int r = 0;
      if (columns == L) {
        for (; r + L <= m; r += L) {
          typename S::V x[L];
          for (int c = 0; c < L; ++c) {
            x[c] = S::load(from + r + static_cast<std::size_t>(c) * ldv);
            if (r < rows_in_slivers) S::store(in_slivers(i0 + c, r), x[c]);
          }
          S::transpose(x);
          for (int c = 0; c < L; ++c) S::store(to + static_cast<std::size_t>(r + c) * sliver, x[c]);
        }
      } else {
        for (int c = 0; c < columns; ++c)
          for (int rs = 0; rs < rows_in_slivers; rs += L)
            std::copy_n(from + rs + static_cast<std::size_t>(c) * ldv, L, in_slivers(i0 + c, rs));
      }
      for (; r < m; ++r)
        for (int c = 0; c < L; ++c)
          to[static_cast<std::size_t>(r) * sliver + c] =
              c < columns ? from[r + static_cast<std::size_t>(c) * ldv] : T(0);
    }
    for (int l = 0; l < kb; ++l) {
      T* column = op_t + static_cast<std::size_t>(p + l) * ldo;
      for (int i = 0; i < ldo; ++i) {
        const bool inside = i < kb && (transpose ? i >= l : i <= l);
        column[i] = !inside     ? T(0)
                    : transpose ? -t[l + static_cast<std::size_t>(p + i) * ldt]   // T_p(l, i)
                                : -t[i + static_cast<std::size_t>(p + l) * ldt];  // T_p(i, l)
      }
    }
  }
  T* w = common::thread_scratch<T, 2>(static_cast<std::size_t>(ldo) * kPanel);
  T* w2 = common::thread_scratch<T, 3>(static_cast<std::size_t>(ldo) * kPanel);

  // Columns by groups whose B fills half of L2 (core_l2_bytes), and in a group block by block, each
  // over the group's panels: the group's B stays in L2 for all the blocks, and each block's packed
  // reflectors for all the group's panels. (Panel by panel over the whole tile, every panel would
  // stream all of V's packed copies from L3.)
  const int group =
      std::max(kPanel, static_cast<int>(core_l2_bytes() / 2 / (sizeof(T) * m)) / kPanel * kPanel);
  for (int g0 = 0; g0 < n; g0 += group)
    for (int step = 0; step < blocks; ++step) {
      // Q^T applies the blocks first to last, Q last to first.
      const int p = (transpose ? step : blocks - 1 - step) * ib;
      const int kb = std::min(ib, k - p);
      const T* block = vt + static_cast<std::size_t>(p / ib) * ldo * m;
      for (int c0 = g0; c0 < std::min(n, g0 + group); c0 += kPanel) {
        const int nc = std::min(kPanel, n - c0);
        T* bp = b + static_cast<std::size_t>(c0) * ldb;
        T* ap = a + static_cast<std::size_t>(c0) * lda;
        // W = V_p^T B, by chunks of rows so that a sliver's chunk stays in L1 for all the columns
        for (int r0 = 0; r0 < m; r0 += kRows) {
          const int rows = std::min(kRows, m - r0);
          for (int g = 0; g < kb; g += sliver)
            for (int j = 0; j < nc; j += kColumns) {
              CONVEYOR_FOR_COLUMNS(vt_times_b_columns, std::min(kColumns, nc - j), rows,
                                   block + static_cast<std::size_t>(g) * m + r0 * sliver, sliver,
                                   bp + r0 + static_cast<std::size_t>(j) * ldb, ldb,
                                   w + g + j * ldo, ldo, r0 > 0)
            }
        }
        // W' = A_p + W; W2 = op(T_p) W' by row blocks of W2, over the columns of op(T_p) that are
        // not zero there (op(T_p) is lower triangular for Q^T, upper for Q); A_p -= W2
        for (int j = 0; j < nc; ++j) {
          const T* aj = ap + p + static_cast<std::size_t>(j) * lda;
          T* wj = w + j * ldo;
          for (int l = 0; l < kb; ++l) wj[l] += aj[l];
        }
        const T* op = op_t + static_cast<std::size_t>(p) * ldo;
        for (int i0 = 0; i0 < kb; i0 += sliver) {
          const int l0 = transpose ? 0 : i0, l1 = transpose ? std::min(kb, i0 + sliver) : kb;
          for (int j = 0; j < nc; j += kColumns) {
            CONVEYOR_FOR_COLUMNS(op_t_times_w, std::min(kColumns, nc - j), l1 - l0,
                                 op + i0 + static_cast<std::size_t>(l0) * ldo, ldo,
                                 w + l0 + j * ldo, ldo, w2 + i0 + j * ldo, ldo)
          }
        }
        for (int j = 0; j < nc; ++j) {
          T* aj = ap + p + static_cast<std::size_t>(j) * lda;
          const T* wj = w2 + j * ldo;
          for (int l = 0; l < kb; ++l) aj[l] -= wj[l];
        }
        // B -= V_p W2: a sliver of rows at a time over all the panel's columns
        const T* slivers = vs + static_cast<std::size_t>(p / ib) * rows_in_slivers * ib;
        for (int r = 0; r < rows_in_slivers; r += sliver)
          for (int j = 0; j < nc; j += kColumns) {
            CONVEYOR_FOR_COLUMNS(minus_v_times_w_sliver, std::min(kColumns, nc - j), kb,
                                 slivers + static_cast<std::size_t>(r) * ib, sliver, w2 + j * ldo,
                                 ldo, bp + r + static_cast<std::size_t>(j) * ldb, ldb)
          }
        if (rows_in_slivers < m)
          for (int j = 0; j < nc; j += kColumns) {
            CONVEYOR_FOR_COLUMNS(last_rows_minus_v_times_w, std::min(kColumns, nc - j),
                                 rows_in_slivers, m, kb, v + static_cast<std::size_t>(p) * ldv, ldv,
                                 w2 + j * ldo, ldo, bp + static_cast<std::size_t>(j) * ldb, ldb)
          }
      }
    }
}

}  // namespace

template <typename T>
void fused_ts_update(bool transpose, int m, int n, int k, int ib, const T* v, int ldv, const T* t,
                     int ldt, T* a, int lda, T* b, int ldb) {
  if (!fused_ts_update_available())
    throw Error("the fused TS update needs an x86-64 CPU with AVX2 and FMA");
  if (m <= 0 || n <= 0 || k <= 0) return;
  fused<typename SimdOf<T>::type>(transpose, m, n, k, ib, v, ldv, t, ldt, a, lda, b, ldb);
}

#else  // not x86-64 with GCC or Clang

bool fused_ts_update_available() { return false; }
namespace {
bool cpu_has_avx512() { return false; }
}  // namespace

template <typename T>
void fused_ts_update(bool, int, int, int, int, const T*, int, const T*, int, T*, int, T*, int) {
  throw Error("the fused TS update needs an x86-64 CPU with AVX2 and FMA");
}

#endif

template void fused_ts_update<float>(bool, int, int, int, int, const float*, int, const float*, int,
                                     float*, int, float*, int);
template void fused_ts_update<double>(bool, int, int, int, int, const double*, int, const double*,
                                      int, double*, int, double*, int);

}  // namespace conveyor::apps::qr
