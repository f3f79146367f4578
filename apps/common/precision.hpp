#pragma once
/// The floating-point precision an application runs in, shared by every app in apps/ so that
/// `--precision s,d` means the same thing everywhere.
///
///   Precision p = parse_precision("s");          // Precision::Single
///   double u = unit_roundoff<float>();           // 2^-24, the u of error analyses
#include <limits>
#include <string_view>

namespace conveyor::apps::common {

enum class Precision { Single, Double };
/// "single" / "double".
std::string_view to_string(Precision p);
/// "s", "single", "float" / "d", "double"; throws UsageError otherwise.
Precision parse_precision(std::string_view text);

/// The unit roundoff u = epsilon / 2 of T (round to nearest): the unit of every error bound.
template <typename T>
constexpr double unit_roundoff() {
  return static_cast<double>(std::numeric_limits<T>::epsilon()) / 2;
}

}  // namespace conveyor::apps::common
