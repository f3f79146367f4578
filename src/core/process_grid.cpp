#include "conveyor/process_grid.hpp"

#include <charconv>

#include "conveyor/error.hpp"

namespace conveyor {

ProcessGrid ProcessGrid::parse(std::string_view text) {
  auto bad = [&] {
    return UsageError("process grid '" + std::string(text) +
                      "': expected PxQ with P, Q >= 1 (e.g. 2x2)");
  };
  auto x = text.find_first_of("xX");
  if (x == std::string_view::npos) throw bad();
  ProcessGrid g;
  auto parse_int = [&](std::string_view s, int& v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < 1) throw bad();
  };
  parse_int(text.substr(0, x), g.p);
  parse_int(text.substr(x + 1), g.q);
  return g;
}

ProcessGrid ProcessGrid::square(int ranks) {
  if (ranks < 1) throw UsageError("a process grid needs at least one rank");
  ProcessGrid g{1, ranks};
  for (int p = 1; p * p <= ranks; ++p)
    if (ranks % p == 0) g = {p, ranks / p};
  return g;
}

}  // namespace conveyor
