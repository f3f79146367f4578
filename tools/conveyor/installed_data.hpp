#pragma once
// Where an installed conveyor finds its data files (the Python plotting package, the simulator's
// programs): <prefix>/share/conveyor, reached from the executable's own location so that an
// installed tree can be moved. A conveyor run from the build tree has none and uses the source
// and build trees, as before.
#include <filesystem>
#include <optional>

namespace conveyor::cli {

/// <prefix>/share/conveyor when this executable is an installed one, else nothing.
std::optional<std::filesystem::path> installed_data_dir();

/// For an installed conveyor: makes `conveyor sim` look for programs in the installed folder
/// unless CONVEYOR_SIM_PROGRAMS says otherwise (the build tree baked into the library may be gone).
void use_installed_sim_programs();

}  // namespace conveyor::cli
