#pragma once
// Integer members of the files Conveyor reads back (calibration, performance models). nlohmann's
// get<int>() casts a float unchecked, and casting 1e10 or -2.5 to an integer type it does not fit
// is undefined behaviour; it also wraps integers silently (-1 as uint64_t). A file may hold
// anything, so the readers take only whole numbers that the type holds.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace conveyor::core {

/// `j` as T when it is an integer (not a float) within T's range, else nullopt.
template <typename T>
std::optional<T> whole_number(const nlohmann::json& j) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  } else if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  }
  return std::nullopt;
}

}  // namespace conveyor::core
