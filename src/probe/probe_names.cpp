#include "conveyor/probe.hpp"

namespace conveyor {

std::string_view to_string(Direction direction) {
  switch (direction) {
    case Direction::HostToDevice:
      return "h2d";
    case Direction::DeviceToHost:
      return "d2h";
    case Direction::DeviceToDevice:
      return "d2d";
  }
  return "unknown";
}

std::string_view to_string(MemoryModel model) {
  switch (model) {
    case MemoryModel::Host:
      return "host";
    case MemoryModel::Pageable:
      return "pageable";
    case MemoryModel::Pinned:
      return "pinned";
    case MemoryModel::Mapped:
      return "mapped";
    case MemoryModel::Svm:
      return "svm";
  }
  return "unknown";
}

}  // namespace conveyor
