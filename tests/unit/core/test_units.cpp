#include <gtest/gtest.h>

#include "conveyor/error.hpp"
#include "conveyor/stats.hpp"
#include "conveyor/units.hpp"

namespace conveyor {
namespace {

TEST(ParseBytes, AcceptsBinaryAndSiSuffixes) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("64K"), 65536u);
  EXPECT_EQ(parse_bytes("2MiB"), 2u << 20);
  EXPECT_EQ(parse_bytes("1.5G"), 3u << 29);
  EXPECT_EQ(parse_bytes("100MB"), 100000000u);
  EXPECT_EQ(parse_bytes(" 8 kB "), 8000u);
}

TEST(ParseBytes, RejectsGarbageNegativeAndTooLarge) {
  EXPECT_THROW(parse_bytes("-1"), UsageError);
  EXPECT_THROW(parse_bytes("12Q"), UsageError);
  EXPECT_THROW(parse_bytes(""), UsageError);
  EXPECT_THROW(parse_bytes("1..2"), UsageError);
  EXPECT_THROW(parse_bytes("2G", "--size", 1u << 30), UsageError);
}

TEST(ParseList, RangesListsAndSteps) {
  EXPECT_EQ(parse_list("3"), (std::vector<int>{3}));
  EXPECT_EQ(parse_list("1-4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_list("1,2,4-5"), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(parse_list("1-9:4"), (std::vector<int>{1, 5, 9}));
}

TEST(ParseList, RejectsBackwardsZeroAndJunk) {
  EXPECT_THROW(parse_list("4-1"), UsageError);
  EXPECT_THROW(parse_list("0"), UsageError);
  EXPECT_THROW(parse_list("a"), UsageError);
  EXPECT_THROW(parse_list(""), UsageError);
  EXPECT_THROW(parse_list("-3"), UsageError);
}

// Regressions found by fuzz/sizes.cpp (inputs kept in fuzz/corpus/sizes/crash_*).
TEST(ParseBytes, RefusesSizesOfTwoTo64AndMore) {
  // 2^64 B: compared with double(UINT64_MAX), which is 2^64 too, it passed and was then cast to
  // uint64_t (undefined behaviour).
  EXPECT_THROW(parse_bytes("16777216T"), UsageError);
  EXPECT_THROW(parse_bytes("18446744073709551616"), UsageError);
  EXPECT_EQ(parse_bytes("16777215T"), 16777215ull << 40);
}

TEST(ParseBytes, LimitIsComparedExactly) {
  // UINT64_MAX / 8 = 2^61 - 1 rounds up to 2^61 as a double: 2^61 passed the limit.
  const std::uint64_t max = UINT64_MAX / 8;
  EXPECT_THROW(parse_bytes("2305843009213693952", "--elements", max), UsageError);
  EXPECT_THROW(parse_bytes("2305843009213693951", "--elements", max), UsageError);  // is 2^61 too
  EXPECT_EQ(parse_bytes("2305843009213693696", "--elements", max), max - 255);      // 2^61 - 256
  EXPECT_EQ(parse_bytes("4096", "--block", 4096), 4096u);
  EXPECT_THROW(parse_bytes("4097", "--block", 4096), UsageError);
}

TEST(ParseList, RangesEndingAtIntMaxDoNotOverflow) {
  // v += step overflowed past INT_MAX (undefined behaviour, then a loop that never ended).
  EXPECT_EQ(parse_list("2147483647"), (std::vector<int>{2147483647}));
  EXPECT_EQ(parse_list("2147483646-2147483647"), (std::vector<int>{2147483646, 2147483647}));
  EXPECT_EQ(parse_list("1-2147483647:1073741824"), (std::vector<int>{1, 1073741825}));
}

TEST(ParseList, RefusesListsOfMoreThan65536Values) {
  // "32-213232132" made a list of 213 million values: gigabytes for one option.
  EXPECT_THROW(parse_list("32-213232132", "--threads"), UsageError);
  EXPECT_EQ(parse_list("1-65536").size(), 65536u);
  EXPECT_THROW(parse_list("1-65536,70000"), UsageError);
}

TEST(FormatBytes, PicksTheLargestWholeUnit) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(64 << 10), "64 KiB");
  EXPECT_EQ(format_bytes(3u << 29), "1.50 GiB");
}

TEST(Summarize, BestMedianWorst) {
  std::vector<double> t = {3, 1, 2, 10};
  TimeSummary s = summarize(t);
  EXPECT_EQ(s.best, 1);
  EXPECT_EQ(s.worst, 10);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_EQ(s.count, 4);
}

TEST(FitLine, RecoversAnExactLine) {
  std::vector<double> x = {1, 2, 3, 4}, y = {5, 7, 9, 11};
  LinearFit f = fit_line(x, y);
  EXPECT_NEAR(f.intercept, 3, 1e-12);
  EXPECT_NEAR(f.slope, 2, 1e-12);
  EXPECT_NEAR(f.rms_residual, 0, 1e-12);
  EXPECT_NEAR(f.r_squared, 1, 1e-12);
}

TEST(FitLine, NeedsTwoDistinctPoints) {
  std::vector<double> x = {1, 1}, y = {2, 3};
  EXPECT_THROW(fit_line(x, y), Error);
}

}  // namespace
}  // namespace conveyor
