// Built with CLBlast (CMake option CONVEYOR_WITH_CLBLAST): the apps' *_clblast.cpp launchers exist.
#include "common/opencl_blas.hpp"

namespace conveyor::apps::common {
bool clblast_available() { return true; }
}  // namespace conveyor::apps::common
