// Kernels of the C interface: a Codelet built from a conveyor_kernel_desc. Each implementation
// reads the tasklet's TargetPayload, whose address travels in the task's argument bytes.
#include <cstring>
#include <string>

#include "capi/handles.hpp"
#include "capi/opencl_launch.hpp"
#include "capi/status.hpp"

namespace conveyor::capi {
namespace {

const TargetPayload& payload_of(const TaskContext& task) {
  const TargetPayload* payload = nullptr;
  std::memcpy(&payload, task.raw_args().data(), sizeof payload);
  return *payload;
}

}  // namespace

std::vector<void*> TargetPayload::pointers(const TaskContext& task) const {
  std::vector<void*> pointers;
  pointers.reserve(args.size());
  for (const Arg& arg : args)
    pointers.push_back(arg.buffer >= 0 ? task.buffer(static_cast<std::size_t>(arg.buffer)).ptr
                                       : value(arg.value_offset));
  return pointers;
}

namespace {

void set_work_size(conveyor_kernel& kernel, unsigned work_dim, const size_t* global_size,
                   const size_t* local_size) {
  require(work_dim <= 3, [&] { return "work_dim " + std::to_string(work_dim) + " is above 3"; });
  unsigned dims = work_dim == 0 ? 1 : work_dim;
  std::lock_guard lock(kernel.mutex);
  kernel.work_dim = dims;
  for (unsigned i = 0; i < 3; ++i) {
    kernel.global_size[i] = (global_size && i < dims && global_size[i]) ? global_size[i] : 1;
    kernel.local_size[i] = (local_size && i < dims) ? local_size[i] : 0;
  }
}

void add_implementations(conveyor_kernel& kernel, const conveyor_kernel_desc& desc) {
  const std::string name = kernel.codelet.name();
  if (desc.host) {
    conveyor_host_fn fn = desc.host;
    kernel.codelet.cpu([fn](const TaskContext& task) {
      std::vector<void*> args = payload_of(task).pointers(task);
      if (int rc = fn(args.data(), static_cast<int>(args.size())); rc != 0)
        throw Error("host function returned " + std::to_string(rc));
    });
  }
  if (desc.cuda_launch) {
    conveyor_cuda_launch_fn launch = desc.cuda_launch;
    kernel.codelet.cuda([launch](const TaskContext& task) {
      std::vector<void*> args = payload_of(task).pointers(task);
      if (int rc = launch(task.cuda_stream(), args.data(), static_cast<int>(args.size())); rc != 0)
        throw DeviceError("CUDA launch function returned " + std::to_string(rc));
    });
  }
  if (desc.opencl_source || desc.opencl_binary) {
    require(!(desc.opencl_source && desc.opencl_binary),
            [&] { return "kernel '" + name + "': give opencl_source or opencl_binary, not both"; });
    require(!desc.opencl_binary || desc.opencl_binary_size > 0,
            [&] { return "kernel '" + name + "': opencl_binary_size is 0"; });
    if (!opencl_available())
      throw CapiError(CONVEYOR_ERROR_USAGE,
                      "kernel '" + name + "': this Conveyor was built without OpenCL");
    OpenclProgram program;
    if (desc.opencl_source) program.source = desc.opencl_source;
    if (desc.opencl_binary)
      program.binary.assign(desc.opencl_binary, desc.opencl_binary + desc.opencl_binary_size);
    program.kernel = desc.opencl_kernel ? desc.opencl_kernel : name;
    if (desc.opencl_options) program.options = desc.opencl_options;
    kernel.codelet.opencl(std::move(program),
                          [](const TaskContext& task) { opencl_enqueue(task, payload_of(task)); });
  }
}

}  // namespace
}  // namespace conveyor::capi

using conveyor::capi::CapiError;
using conveyor::capi::guard;
using conveyor::capi::require;

extern "C" {

conveyor_kernel* conveyor_kernel_create(conveyor_runtime* runtime,
                                        const conveyor_kernel_desc* desc) {
  conveyor_kernel* created = nullptr;
  guard("conveyor_kernel_create", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(desc != nullptr, "desc is NULL");
    require(desc->name != nullptr && *desc->name != '\0', "desc->name is NULL or empty");
    require(desc->host || desc->cuda_launch || desc->opencl_source || desc->opencl_binary, [&] {
      return std::string("kernel '") + desc->name +
             "' has no implementation (host, cuda_launch, opencl_source or opencl_binary)";
    });
    auto kernel = std::make_unique<conveyor_kernel>(desc->name);
    kernel->host = desc->host;
    kernel->cuda_launch = desc->cuda_launch;
    conveyor::capi::add_implementations(*kernel, *desc);
    conveyor::capi::set_work_size(*kernel, desc->work_dim, desc->global_size, desc->local_size);
    std::lock_guard lock(runtime->kernels_mutex);
    auto [it, inserted] = runtime->kernels.try_emplace(desc->name, std::move(kernel));
    if (!inserted)
      throw CapiError(CONVEYOR_ERROR_INVALID_ARGUMENT,
                      std::string("a kernel named '") + desc->name + "' exists already");
    created = it->second.get();
  });
  return created;
}

conveyor_kernel* conveyor_kernel_get(conveyor_runtime* runtime, const char* name) {
  conveyor_kernel* found = nullptr;
  guard("conveyor_kernel_get", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(name != nullptr, "name is NULL");
    std::lock_guard lock(runtime->kernels_mutex);
    auto it = runtime->kernels.find(std::string_view(name));
    if (it == runtime->kernels.end()) {
      std::string known;
      for (const auto& [kernel_name, kernel] : runtime->kernels)
        known += (known.empty() ? "" : ", ") + kernel_name;
      throw CapiError(CONVEYOR_ERROR_UNKNOWN_KERNEL,
                      std::string("no kernel named '") + name +
                          "' (kernels: " + (known.empty() ? "none" : known) + ")");
    }
    found = it->second.get();
  });
  return found;
}

conveyor_status conveyor_kernel_set_work_size(conveyor_kernel* kernel, unsigned work_dim,
                                              const size_t* global_size, const size_t* local_size) {
  return guard("conveyor_kernel_set_work_size", CONVEYOR_ERROR_INTERNAL, [&] {
    require(kernel != nullptr, "kernel is NULL");
    conveyor::capi::set_work_size(*kernel, work_dim, global_size, local_size);
  });
}

}  // extern "C"
