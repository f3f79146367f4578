// The application pair of seed 004 on the CPU: a blocked single-precision matrix product and MD5
// over independent 64-byte messages, both spread over every core. Small problems run on the calling
// core alone, as a tuned CPU code would: waking the team costs more than it saves there, and the
// comparison with a device should be against the CPU at its best.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "conveyor/error.hpp"
#include "core/md5.hpp"
#include "probe_target.hpp"

namespace conveyor::cpu {
namespace {

// Blocking of the product: a panel of kBlockK rows of B, kBlockJ floats wide (128 KiB), stays in
// L2 while every row of this member's share of C streams over it.
constexpr int kBlockK = 128;
constexpr int kBlockJ = 256;
constexpr long kParallelFlops = 2L * 64 * 64 * 64;  // below: one core
constexpr std::size_t kParallelMessages = 256;

template <typename F>
double host_seconds(F&& body) {
  auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Builds one copy per instruction set where the compiler supports it (GCC/Clang on x86-64), so
// the CPU side uses the vector width of this machine like the OpenCL driver's kernel compiler does,
// without -march=native on the whole build.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONVEYOR_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CONVEYOR_VECTOR_CLONES
#endif

/// Rows [row_begin, row_end) of C = A * B (C zeroed by the caller).
CONVEYOR_VECTOR_CLONES
void matmul_rows(int n, const float* __restrict a, const float* __restrict b, float* __restrict c,
                 int row_begin, int row_end) {
  for (int jj = 0; jj < n; jj += kBlockJ) {
    const int j_end = std::min(n, jj + kBlockJ);
    for (int kk = 0; kk < n; kk += kBlockK) {
      const int k_end = std::min(n, kk + kBlockK);
      for (int i = row_begin; i < row_end; ++i) {
        float* __restrict c_row = c + static_cast<std::size_t>(i) * n;
        const float* a_row = a + static_cast<std::size_t>(i) * n;
        for (int k = kk; k < k_end; ++k) {
          const float aik = a_row[k];
          const float* __restrict b_row = b + static_cast<std::size_t>(k) * n;
          for (int j = jj; j < j_end; ++j) c_row[j] += aik * b_row[j];
        }
      }
    }
  }
}

void md5_range(const std::uint8_t* messages, std::uint8_t* digests, std::size_t begin,
               std::size_t end) {
  std::uint32_t words[16], state[4];
  for (std::size_t i = begin; i < end; ++i) {
    md5_load_words(messages + i * 64, words);
    md5_64(words, state);
    md5_store_digest(state, digests + i * 16);
  }
}

}  // namespace

double CpuProbeTarget::matmul(int n, const float* a, const float* b, float* c) {
  if (n <= 0) throw UsageError(fmt::format("matmul: n must be positive, not {}", n));
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  if (2.0 * n * n * n < kParallelFlops)
    return host_seconds([&] {
      std::fill(c, c + nn, 0.0f);
      matmul_rows(n, a, b, c, 0, n);
    });
  return host_seconds([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(static_cast<std::size_t>(n), member, team_.size());
      std::fill(c + begin * n, c + end * n, 0.0f);
      matmul_rows(n, a, b, c, static_cast<int>(begin), static_cast<int>(end));
    });
  });
}

double CpuProbeTarget::md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) {
  if (count == 0) throw UsageError("md5: at least one message is needed");
  if (count < kParallelMessages)
    return host_seconds([&] { md5_range(messages, digests, 0, count); });
  return host_seconds([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(count, member, team_.size());
      md5_range(messages, digests, begin, end);
    });
  });
}

}  // namespace conveyor::cpu
