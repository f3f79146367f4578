// Feeds: the size and list options of the CLI (--size, --block, --elements, --max-size,
// --local-memory; --threads, --nodes) to the functions that parse them, parse_bytes and
// parse_list (src/core/units.cpp). The first byte picks the parser and parse_bytes' limit (those
// the CLI passes), the rest is the option's text.
// A bug: a crash, sanitizer report or out-of-memory; a rejection that is not UsageError; an
// accepted size above its limit, or one that does not parse back to itself when printed as a plain
// number or (near itself) as format_bytes prints it; an accepted list that is empty, holds a value
// that is not positive, or does not read back as itself.
#include <cstdint>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "fuzz_check.hpp"

using conveyor::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The limits the CLI gives: none, --block's 16 GiB, a count of doubles that fits memory, tiny.
  static constexpr std::uint64_t kLimits[] = {UINT64_MAX, std::uint64_t{1} << 34,
                                              UINT64_MAX / sizeof(double), 4096};
  const std::uint8_t selector = data[0];
  const std::string text = conveyor::fuzz::text_of(data + 1, size - 1);
  try {
    if (selector & 0x80) {
      const std::vector<int> list = conveyor::parse_list(text, "--threads");
      check(!list.empty(), "parse_list accepted an empty list");
      std::string joined;
      for (int v : list) {
        check(v > 0, "parse_list accepted a value that is not positive");
        joined += (joined.empty() ? "" : ",") + std::to_string(v);
      }
      // Its values written back as a plain list read as the same list.
      check(conveyor::parse_list(joined, "--threads") == list,
            "parse_list: a list does not read back as itself");
    } else {
      const std::uint64_t max = kLimits[selector % 4];
      const std::uint64_t bytes = conveyor::parse_bytes(text, "--size", max);
      check(bytes <= max, "parse_bytes accepted a size above its limit");
      check(conveyor::parse_bytes(std::to_string(bytes), "--size", max) == bytes,
            "parse_bytes: an accepted size does not parse back to itself");
      const std::string printed = conveyor::format_bytes(bytes);
      check(!printed.empty(), "format_bytes gave nothing");
      // format_bytes rounds to two decimals of its unit; below 1 PiB (its first unit that
      // parse_bytes does not read) that reads back within 0.5 % (plus the rounding of a byte).
      if (bytes < (std::uint64_t{1} << 50)) {
        const double back = static_cast<double>(conveyor::parse_bytes(printed, "--size"));
        const double want = static_cast<double>(bytes);
        check(back >= want * 0.995 - 1 && back <= want * 1.005 + 1,
              "format_bytes: a size does not read back near itself");
      }
    }
  } catch (const conveyor::UsageError&) {
    // The documented rejection.
  }
  return 0;
}
