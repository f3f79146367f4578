#pragma once
// Helpers for tests on simulated platforms: platform files written to a temporary directory, and
// the task graph of a tiled Cholesky with kernels that do nothing.
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "device/simulated/platform.hpp"

namespace conveyor::test {

/// This process's own directory for platform files (mkdtemp), removed with everything in it when
/// the process exits.
class PlatformDir {
 public:
  PlatformDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "conveyor_platforms_XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp: " + pattern);
    path_ = pattern;
  }
  ~PlatformDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes `json` to a fresh file in this process's platform directory and returns its path.
inline std::string write_platform_file(const std::string& json) {
  static PlatformDir dir;
  static std::atomic<int> counter{0};
  auto path = dir.path() / ("platform_" + std::to_string(counter++) + ".json");
  std::ofstream(path) << json;
  return path.string();
}

/// A platform of `devices` devices behind one switch; every link `gbs` GB/s, no latency; host and
/// devices process `compute_gbs` GB/s of their tasks' buffers.
inline std::string switch_platform(int devices, double gbs = 1, double compute_gbs = 1,
                                   double memory_gb = 1) {
  std::string links = R"({"between": ["host", "sw"], "gbs": )" + std::to_string(gbs) + "}";
  for (int d = 0; d < devices; ++d)
    links += R"(, {"between": ["sw", "sim:)" + std::to_string(d) + R"("], "gbs": )" +
             std::to_string(gbs) + "}";
  return R"({"name": "test", "host": {"cores": 2, "gbs": )" + std::to_string(compute_gbs) +
         R"(}, "devices": [{"id": "sim", "count": )" + std::to_string(devices) +
         R"(, "memory_gb": )" + std::to_string(memory_gb) + R"(, "gbs": )" +
         std::to_string(compute_gbs) + R"(}], "switches": ["sw"], "links": [)" + links + "]}";
}

inline Codelet noop_codelet(const char* name, bool device) {
  Codelet c(name);
  auto nothing = [](const TaskContext&) {};
  c.cpu(nothing);
  if (device) c.cuda(nothing);
  return c;
}

/// The tiled Cholesky graph (lower, right-looking) on an nt x nt grid; gemm has a device
/// implementation, the others run on CPUs unless `all_on_device` (what `conveyor cholesky
/// --platform` runs).
inline void submit_noop_cholesky(Runtime& rt, const TileGrid& a, std::size_t nt,
                                 bool all_on_device = false) {
  Codelet potrf = noop_codelet("potrf", all_on_device), trsm = noop_codelet("trsm", all_on_device),
          syrk = noop_codelet("syrk", all_on_device), gemm = noop_codelet("gemm", true);
  for (std::size_t k = 0; k < nt; ++k) {
    rt.submit(potrf, {{a.at(k, k), Access::ReadWrite}});
    for (std::size_t i = k + 1; i < nt; ++i)
      rt.submit(trsm, {{a.at(k, k), Access::Read}, {a.at(i, k), Access::ReadWrite}});
    for (std::size_t j = k + 1; j < nt; ++j) {
      rt.submit(syrk, {{a.at(j, k), Access::Read}, {a.at(j, j), Access::ReadWrite}});
      for (std::size_t i = j + 1; i < nt; ++i)
        rt.submit(gemm, {{a.at(i, k), Access::Read},
                         {a.at(j, k), Access::Read},
                         {a.at(i, j), Access::ReadWrite}});
    }
  }
}

/// The one-line error a platform file's text gets from the reader, or "(accepted)".
inline std::string platform_error(const std::string& json) {
  try {
    device::simulated::parse_platform(json, "p.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace conveyor::test
