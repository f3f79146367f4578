#pragma once
/// Parsing and printing of sizes, counts, ranges and rates. Rates are SI: 1 GB/s = 1e9 B/s.
///
/// Size suffixes: none = bytes; K, M, G, T and KiB, MiB, GiB, TiB = powers of 1024; kB, MB, GB, TB
/// = powers of 1000. Counts (elements) accept the same suffixes.
///
///   conveyor::parse_bytes("2MiB") == 2097152;  conveyor::parse_list("1-4,8") == {1, 2, 3, 4, 8}
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace conveyor {

/// Parses "4096", "64K", "1.5GiB", "100MB". Throws UsageError on anything else, on negative values
/// and on values above `max` (the message names `what`, e.g. "--size").
std::uint64_t parse_bytes(std::string_view text, std::string_view what = "size",
                          std::uint64_t max = UINT64_MAX);

/// Parses a list of positive integers: "4", "1-8", "1,2,4", "1-16:4" (start-stop:step), or a mix.
/// Throws UsageError for an empty, reversed or non-positive range, and for more than 65536 values.
std::vector<int> parse_list(std::string_view text, std::string_view what = "list");

/// "1.50 GiB", "64 KiB", "512 B": binary units, for sizes of buffers.
std::string format_bytes(std::uint64_t bytes);

/// Seconds as a short human string: "12.3 us", "4.56 ms", "1.20 s".
std::string format_seconds(double seconds);

}  // namespace conveyor
