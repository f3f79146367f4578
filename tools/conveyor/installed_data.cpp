#include "installed_data.hpp"

#include <cstdlib>
#include <system_error>

#include "cli_config.hpp"

namespace conveyor::cli {

std::optional<std::filesystem::path> installed_data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  fs::path data = (exe.parent_path() / kBinToDataDir).lexically_normal();
  // The plotting package is what every installation has; the programs are optional.
  if (!fs::is_regular_file(data / "python" / "conveyor_plot" / "__main__.py", ec))
    return std::nullopt;
  return data;
}

void use_installed_sim_programs() {
  if (const char* set = std::getenv("CONVEYOR_SIM_PROGRAMS"); set && *set) return;
  auto data = installed_data_dir();
  std::error_code ec;
  if (data && std::filesystem::is_directory(*data / "sim" / "programs", ec))
    setenv("CONVEYOR_SIM_PROGRAMS", (*data / "sim" / "programs").c_str(), 0);
}

}  // namespace conveyor::cli
