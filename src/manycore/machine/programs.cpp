// Finding the benchmark programs: built by CMake into the build tree when the RISC-V cross
// compiler is present.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "conveyor/sim.hpp"
#include "manycore_paths.hpp"

namespace conveyor::sim {

const std::vector<std::string>& benchmark_names() {
  static const std::vector<std::string> names = {"pipeline", "stencil", "alltoall", "cannon",
                                                 "bitonic"};
  return names;
}

std::string programs_dir(const std::string& override_dir) {
  if (!override_dir.empty()) return override_dir;
  if (const char* env = std::getenv("CONVEYOR_SIM_PROGRAMS"); env && *env) return env;
  return manycore::kBuiltProgramsDir;
}

std::string resolve_program(const std::string& name_or_path, const std::string& override_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".elf")) {
    if (!fs::is_regular_file(name_or_path, ec))
      throw UsageError(fmt::format("sim: program '{}' not found", name_or_path));
    return name_or_path;
  }
  const std::string dir = programs_dir(override_dir);
  const std::string path = dir + "/" + name_or_path + ".elf";
  if (fs::is_regular_file(path, ec)) return path;
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format(
        "sim: no built programs in {} (the RISC-V programs are built only when cmake finds "
        "riscv64-unknown-elf-gcc: install gcc-riscv64-unknown-elf and "
        "picolibc-riscv64-unknown-elf, "
        "re-run cmake; or pass --programs DIR / set CONVEYOR_SIM_PROGRAMS)",
        dir));
  throw UsageError(
      fmt::format("sim: no program '{}' in {} (benchmarks: pipeline, stencil, "
                  "alltoall, cannon, bitonic; or give a path to an .elf file)",
                  name_or_path, dir));
}

}  // namespace conveyor::sim
