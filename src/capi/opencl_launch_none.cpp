// Built without OpenCL: kernels given OpenCL programs are refused when created.
#include "capi/opencl_launch.hpp"
#include "conveyor/error.hpp"

namespace conveyor::capi {

bool opencl_available() { return false; }

void opencl_enqueue(const TaskContext&, const TargetPayload&) {
  throw UsageError("this Conveyor was built without OpenCL");
}

}  // namespace conveyor::capi
