#include "capi/opencl_launch.hpp"

#include <CL/cl.h>

#include <string>

#include "conveyor/error.hpp"

namespace conveyor::capi {
namespace {

void check(cl_int status, const std::string& call) {
  if (status != CL_SUCCESS)
    throw DeviceError(call + " failed with OpenCL error " + std::to_string(status));
}

}  // namespace

bool opencl_available() { return true; }

void opencl_enqueue(const TaskContext& task, const TargetPayload& payload) {
  auto kernel = static_cast<cl_kernel>(task.opencl_kernel());
  if (kernel == nullptr) throw UsageError("the kernel has no OpenCL program");
  for (std::size_t i = 0; i < payload.args.size(); ++i) {
    const TargetPayload::Arg& arg = payload.args[i];
    const auto index = static_cast<cl_uint>(i);
    if (arg.buffer >= 0) {
      cl_mem memory = task.opencl_mem(static_cast<std::size_t>(arg.buffer));
      check(clSetKernelArg(kernel, index, sizeof memory, &memory),
            "clSetKernelArg(" + std::to_string(i) + ", map)");
    } else {
      check(clSetKernelArg(kernel, index, arg.value_size, payload.value(arg.value_offset)),
            "clSetKernelArg(" + std::to_string(i) + ", " + std::to_string(arg.value_size) +
                " bytes)");
    }
  }
  const bool has_local = payload.local_size[0] != 0;
  check(
      clEnqueueNDRangeKernel(static_cast<cl_command_queue>(task.opencl_queue()), kernel,
                             payload.work_dim, nullptr, payload.global_size.data(),
                             has_local ? payload.local_size.data() : nullptr, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel");
}

}  // namespace conveyor::capi
