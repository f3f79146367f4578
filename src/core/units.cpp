#include "conveyor/units.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "conveyor/error.hpp"

namespace conveyor {
namespace {

// Multiplier for a size suffix, or 0 when the suffix is unknown.
std::uint64_t suffix_multiplier(std::string_view s) {
  struct Suffix {
    std::string_view text;
    std::uint64_t multiplier;
  };
  static constexpr Suffix kSuffixes[] = {
      {"", 1},
      {"B", 1},
      {"K", 1ull << 10},
      {"KiB", 1ull << 10},
      {"kB", 1000ull},
      {"KB", 1000ull},
      {"M", 1ull << 20},
      {"MiB", 1ull << 20},
      {"MB", 1000000ull},
      {"G", 1ull << 30},
      {"GiB", 1ull << 30},
      {"GB", 1000000000ull},
      {"T", 1ull << 40},
      {"TiB", 1ull << 40},
      {"TB", 1000000000000ull},
  };
  for (const auto& suffix : kSuffixes)
    if (suffix.text == s) return suffix.multiplier;
  return 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A list is a sweep of thread or node counts: a few values. Bounded, so that "1-2000000000" is
// refused instead of allocating gigabytes.
constexpr std::size_t kMaxListValues = std::size_t{1} << 16;

int parse_positive_int(std::string_view text, std::string_view what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
    throw UsageError(fmt::format("{}: '{}' is not a positive integer", what, text));
  return value;
}

}  // namespace

std::uint64_t parse_bytes(std::string_view text, std::string_view what, std::uint64_t max) {
  std::string_view s = trim(text);
  std::size_t digits = 0;
  while (digits < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[digits])) || s[digits] == '.'))
    ++digits;
  std::string_view number = s.substr(0, digits);
  std::uint64_t multiplier = suffix_multiplier(trim(s.substr(digits)));
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      multiplier == 0)
    throw UsageError(
        fmt::format("{}: '{}' is not a size (examples: 4096, 64K, 2MiB, 1.5GB)", what, text));
  double bytes = std::round(value * static_cast<double>(multiplier));
  // Not `bytes > double(max)`: a limit near 2^64 (or 2^61) rounds up as a double, and a value
  // equal to it would pass, then not fit the integer (2^64) or exceed the limit. Below 2^64 the
  // conversion is exact; the limit is then compared as an integer.
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (!(bytes < kTwoTo64) || static_cast<std::uint64_t>(bytes) > max)
    throw UsageError(
        fmt::format("{}: '{}' is too large (at most {})", what, text, format_bytes(max)));
  return static_cast<std::uint64_t>(bytes);
}

std::vector<int> parse_list(std::string_view text, std::string_view what) {
  std::vector<int> out;
  std::string_view rest = trim(text);
  if (rest.empty()) throw UsageError(fmt::format("{}: empty list", what));
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    int step = 1;
    if (std::size_t colon = item.find(':'); colon != std::string_view::npos) {
      step = parse_positive_int(item.substr(colon + 1), what);
      item = item.substr(0, colon);
    }
    std::size_t dash = item.find('-', 1);
    int first = parse_positive_int(item.substr(0, dash), what);
    int last =
        dash == std::string_view::npos ? first : parse_positive_int(item.substr(dash + 1), what);
    if (last < first) throw UsageError(fmt::format("{}: range '{}' runs backwards", what, item));
    // `last - v < step` rather than `v + step > last`: v + step overflows near INT_MAX.
    for (int v = first;; v += step) {
      if (out.size() == kMaxListValues)
        throw UsageError(
            fmt::format("{}: '{}' has more than {} values", what, text, kMaxListValues));
      out.push_back(v);
      if (last - v < step) break;
    }
  }
  return out;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return value == std::floor(value) ? fmt::format("{:.0f} {}", value, kUnits[unit])
                                    : fmt::format("{:.2f} {}", value, kUnits[unit]);
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-6) return fmt::format("{:.1f} ns", seconds * 1e9);
  if (seconds < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (seconds < 1.0) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace conveyor
