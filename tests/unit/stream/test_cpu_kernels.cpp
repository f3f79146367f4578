// The CPU STREAM kernels on sub-ranges: every kernel of every variant and ISA level this CPU has,
// on odd lengths, unaligned starts and empty ranges, against a scalar reference; and nothing
// written outside [begin, begin + n).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "conveyor/error.hpp"
#include "stream/cpu_kernels.hpp"

namespace conveyor::test {
namespace {

using stream::CpuKernels;

std::vector<const CpuKernels*> every_kernel_set() {
  std::vector<const CpuKernels*> sets{&stream::cpu_kernels(StreamVariant::Standard),
                                      &stream::cpu_kernels(StreamVariant::Tuned)};
  for (auto isa : stream::supported_isas()) sets.push_back(&stream::tuned_kernels(isa));
  return sets;
}

constexpr double kGuard = -7777.0;
constexpr std::size_t kPad = 16;

// Arrays with guard elements around the range [kPad + offset, kPad + offset + n). Values are small
// integers so that every result is exact whatever the instruction order.
struct Arrays {
  Arrays(std::size_t offset, std::size_t n) : offset(offset), n(n) {
    for (auto* v : {&a, &b, &c}) v->assign(n + offset + 2 * kPad, kGuard);
    for (std::size_t i = 0; i < n; ++i) {
      a[kPad + offset + i] = static_cast<double>(i % 17);
      b[kPad + offset + i] = static_cast<double>((3 * i) % 11) - 5;
      c[kPad + offset + i] = static_cast<double>((7 * i) % 13) + 1;
    }
  }
  double* pa() { return a.data() + kPad + offset; }
  double* pb() { return b.data() + kPad + offset; }
  double* pc() { return c.data() + kPad + offset; }
  std::size_t offset, n;
  std::vector<double> a, b, c;
};

void expect_guards_intact(const std::vector<double>& v, std::size_t offset, std::size_t n) {
  for (std::size_t i = 0; i < kPad + offset; ++i) ASSERT_EQ(v[i], kGuard) << "before, at " << i;
  for (std::size_t i = kPad + offset + n; i < v.size(); ++i)
    ASSERT_EQ(v[i], kGuard) << "after, at " << i;
}

class CpuKernelRanges : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CpuKernelRanges, EveryKernelMatchesTheScalarReference) {
  const std::size_t n = GetParam();
  const double s = 3.0;
  for (const CpuKernels* k : every_kernel_set()) {
    for (std::size_t offset = 0; offset < 9; ++offset) {
      SCOPED_TRACE(testing::Message() << stream::to_string(k->isa) << " offset " << offset);
      Arrays x(offset, n), ref(offset, n);

      k->copy(x.pc(), x.pa(), n);
      for (std::size_t i = 0; i < n; ++i) ref.pc()[i] = ref.pa()[i];
      ASSERT_EQ(x.c, ref.c);

      k->scale(x.pb(), x.pc(), s, n);
      for (std::size_t i = 0; i < n; ++i) ref.pb()[i] = s * ref.pc()[i];
      ASSERT_EQ(x.b, ref.b);

      k->add(x.pc(), x.pa(), x.pb(), n);
      for (std::size_t i = 0; i < n; ++i) ref.pc()[i] = ref.pa()[i] + ref.pb()[i];
      ASSERT_EQ(x.c, ref.c);

      k->triad(x.pa(), x.pb(), x.pc(), s, n);
      for (std::size_t i = 0; i < n; ++i) ref.pa()[i] = ref.pb()[i] + s * ref.pc()[i];
      ASSERT_EQ(x.a, ref.a);

      double expected = 0;
      for (std::size_t i = 0; i < n; ++i) expected += ref.pa()[i] * ref.pb()[i];
      EXPECT_EQ(k->dot(x.pa(), x.pb(), n), expected);

      expect_guards_intact(x.a, offset, n);
      expect_guards_intact(x.b, offset, n);
      expect_guards_intact(x.c, offset, n);
    }
  }
}

// 0 and 1: nothing or only the scalar head; 7/9/15/17/33: tails around one and two vector steps;
// 1000 and 4099: long bodies with both head and tail.
INSTANTIATE_TEST_SUITE_P(Lengths, CpuKernelRanges,
                         ::testing::Values(0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 1000, 4099));

TEST(CpuKernels, SourcesAndDestinationMisalignedDifferently) {
  // Destination aligned after a head of 3, sources at other offsets: unaligned loads must be used.
  const std::size_t n = 517;
  std::vector<double> src(n + 8), dst(n + 8, 0.0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<double>(i);
  for (const CpuKernels* k : every_kernel_set())
    for (std::size_t so = 0; so < 4; ++so)
      for (std::size_t d = 0; d < 4; ++d) {
        std::fill(dst.begin(), dst.end(), 0.0);
        k->copy(dst.data() + d, src.data() + so, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dst[d + i], src[so + i]) << i;
      }
}

TEST(CpuKernels, TunedIsLabelledAndStandardIsPlain) {
  const CpuKernels& standard = stream::cpu_kernels(StreamVariant::Standard);
  EXPECT_EQ(standard.isa, stream::Isa::Portable);
  EXPECT_FALSE(standard.streaming_stores);
  const CpuKernels& tuned = stream::cpu_kernels(StreamVariant::Tuned);
  EXPECT_EQ(tuned.isa, stream::supported_isas().back());
  EXPECT_EQ(tuned.streaming_stores, tuned.isa != stream::Isa::Portable);
}

TEST(CpuKernels, UnsupportedIsaIsAnError) {
  auto isas = stream::supported_isas();
  bool has512 = std::find(isas.begin(), isas.end(), stream::Isa::Avx512) != isas.end();
  if (has512) GTEST_SKIP() << "this CPU has AVX-512F";
  EXPECT_THROW(stream::tuned_kernels(stream::Isa::Avx512), Error);
}

}  // namespace
}  // namespace conveyor::test
