#pragma once
// Sets a target tasklet's OpenCL kernel arguments (cl_mem for maps, bytes for values) and
// enqueues its NDRange. Compiled from opencl_launch.cpp with OpenCL, else opencl_launch_none.cpp.
#include "capi/handles.hpp"
#include "conveyor/codelet.hpp"

namespace conveyor::capi {

/// Whether this build can launch OpenCL kernels.
bool opencl_available();
/// Enqueues on task.opencl_queue(); throws DeviceError naming the failed call.
void opencl_enqueue(const TaskContext& task, const TargetPayload& payload);

}  // namespace conveyor::capi
