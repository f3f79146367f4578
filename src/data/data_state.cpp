#include "data/data_state.hpp"

#include <fmt/format.h>

namespace conveyor::data {

const char* to_string(Msi s) {
  switch (s) {
    case Msi::Invalid:
      return "I";
    case Msi::Shared:
      return "S";
    case Msi::Modified:
      return "M";
  }
  return "?";
}

std::string DataState::describe() const {
  std::string label = name.empty() ? std::string("data") : fmt::format("'{}'", name);
  if (cols == 1) return fmt::format("{} (vector of {} bytes)", label, bytes());
  return fmt::format("{} ({}x{} matrix of {}-byte elements, ld {})", label, rows, cols, elem_size,
                     ld);
}

}  // namespace conveyor::data
