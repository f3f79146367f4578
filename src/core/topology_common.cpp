// Parts of the topology that read Linux directly, whichever detector is compiled in.
#include <fstream>
#include <string>

#include "conveyor/topology.hpp"

namespace conveyor {

// Reads a "Key:   12345 kB" line of /proc/meminfo, in bytes; 0 when absent.
std::uint64_t meminfo_bytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == key + ":") return kib * 1024;
  }
  return 0;
}

std::uint64_t available_memory_bytes() { return meminfo_bytes("MemAvailable"); }

std::string cpuinfo_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}

}  // namespace conveyor
