// The application pair of seed 004 on the CPU: a single-precision matrix product (OpenBLAS, else a
// blocked loop, sgemm.cpp) and MD5 over independent 64-byte messages, both over every core. Small
// problems run on the calling core alone, as a tuned CPU code would: waking the team costs more
// than it saves there, and a device should be compared with the CPU at its best.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "conveyor/error.hpp"
#include "core/md5.hpp"
#include "core/seconds_of.hpp"
#include "cpu_probe_target.hpp"
#include "sgemm.hpp"

#ifdef CONVEYOR_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace conveyor::backend::cpu {
namespace {

constexpr std::size_t kParallelMessages = 256;

void md5_range(const std::uint8_t* messages, std::uint8_t* digests, std::size_t begin,
               std::size_t end) {
  std::uint32_t words[16], state[4];
  for (std::size_t i = begin; i < end; ++i) {
    core::md5_load_words(messages + i * 64, words);
    core::md5_64(words, state);
    core::md5_store_digest(state, digests + i * 16);
  }
}

}  // namespace

double CpuProbeTarget::matmul(int n, const float* a, const float* b, float* c) {
  if (n <= 0) throw UsageError(fmt::format("matmul: n must be positive, not {}", n));
#ifdef CONVEYOR_HAVE_OPENBLAS
  // OpenBLAS runs its own threads over all cores and picks one core for small products itself.
  return core::seconds_of([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  });
#else
  constexpr double kParallelFlops = 2.0 * 64 * 64 * 64;  // below: one core
  if (2.0 * n * n * n < kParallelFlops)
    return core::seconds_of([&] { blocked_sgemm_rows(n, a, b, c, 0, n); });
  return core::seconds_of([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(static_cast<std::size_t>(n), member, team_.size());
      blocked_sgemm_rows(n, a, b, c, static_cast<int>(begin), static_cast<int>(end));
    });
  });
#endif
}

double CpuProbeTarget::md5(std::size_t count, const std::uint8_t* messages, std::uint8_t* digests) {
  if (count == 0) throw UsageError("md5: at least one message is needed");
  if (count < kParallelMessages)
    return core::seconds_of([&] { md5_range(messages, digests, 0, count); });
  return core::seconds_of([&] {
    team_.run([&](int member) {
      auto [begin, end] = share(count, member, team_.size());
      md5_range(messages, digests, begin, end);
    });
  });
}

}  // namespace conveyor::backend::cpu
