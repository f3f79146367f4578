#include "common/precision.hpp"

#include <string>

#include "conveyor/error.hpp"

namespace conveyor::apps::common {

std::string_view to_string(Precision p) { return p == Precision::Single ? "single" : "double"; }

Precision parse_precision(std::string_view text) {
  if (text == "s" || text == "single" || text == "float") return Precision::Single;
  if (text == "d" || text == "double") return Precision::Double;
  throw UsageError("unknown precision '" + std::string(text) + "' (use s or d)");
}

}  // namespace conveyor::apps::common
