// Built without CLBlast: the apps' OpenCL kernels are their own (the *_noclblast.cpp stand-ins).
#include "common/opencl_blas.hpp"

namespace conveyor::apps::common {
bool clblast_available() { return false; }
}  // namespace conveyor::apps::common
