#include "context.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace conveyor::backend::opencl {
namespace {

// CL_DEVICE_VERSION reads "OpenCL <major>.<minor> <vendor-specific information>".
void parse_version(const std::string& text, int& major, int& minor) {
  if (std::sscanf(text.c_str(), "OpenCL %d.%d", &major, &minor) != 2) {
    major = 1;
    minor = 0;
  }
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS)
    return "(no build log)";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  constexpr std::size_t kMaxLog = 4000;
  if (log.size() > kMaxLog) log = log.substr(0, kMaxLog) + "\n...";
  return log;
}

}  // namespace

DeviceFacts query_facts(cl_platform_id platform, cl_device_id device, std::string id) {
  DeviceFacts f;
  f.platform = platform;
  f.device = device;
  f.id = std::move(id);
  f.name = device_string(device, CL_DEVICE_NAME);
  parse_version(device_string(device, CL_DEVICE_VERSION), f.version_major, f.version_minor);
  f.type = device_info<cl_device_type>(device, CL_DEVICE_TYPE);
  f.compute_units = device_info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  f.global_mem_bytes = device_info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  f.max_alloc_bytes = device_info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  f.local_mem_bytes = device_info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  f.max_work_group = device_info<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  f.fp64 = device_info_or<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0 ||
           device_string(device, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
  // SVM entered the API in OpenCL 2.0; on older devices the query itself is invalid.
  if (f.at_least(2, 0))
    f.svm = device_info_or<cl_device_svm_capabilities>(device, CL_DEVICE_SVM_CAPABILITIES, 0);
  return f;
}

DeviceContext::DeviceContext(DeviceFacts facts) : facts_(std::move(facts)) {
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(facts_.platform), 0};
  context_.reset(CONVEYOR_CL_CREATE(
      clCreateContext(properties, 1, &facts_.device, nullptr, nullptr, &cl_err)));
}

Queue DeviceContext::make_queue() const {
  if (facts_.at_least(2, 0)) {
    cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    return Queue(CONVEYOR_CL_CREATE(
        clCreateCommandQueueWithProperties(context_.get(), facts_.device, properties, &cl_err)));
  }
  return Queue(CONVEYOR_CL_CREATE(
      clCreateCommandQueue(context_.get(), facts_.device, CL_QUEUE_PROFILING_ENABLE, &cl_err)));
}

cl_program DeviceContext::program(std::string_view source, std::string_view options) {
  std::string key = fmt::format("{}\n//options: {}", source, options);
  std::lock_guard lock(mutex_);
  if (auto it = programs_.find(key); it != programs_.end()) return it->second.get();

  const char* text = source.data();
  std::size_t length = source.size();
  Program program(
      CONVEYOR_CL_CREATE(clCreateProgramWithSource(context_.get(), 1, &text, &length, &cl_err)));
  std::string opts(options);
  cl_int status = clBuildProgram(program.get(), 1, &facts_.device, opts.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS)
    throw DeviceError(
        fmt::format("{} on {}; build log:\n{}",
                    describe_cl_failure(status, "clBuildProgram(program, ...)", __FILE__, __LINE__),
                    facts_.id, build_log(program.get(), facts_.device)));
  return programs_.emplace(std::move(key), std::move(program)).first->second.get();
}

Kernel DeviceContext::kernel(std::string_view source, const char* name, std::string_view options) {
  cl_program built = program(source, options);
  return Kernel(CONVEYOR_CL_CREATE(clCreateKernel(built, name, &cl_err)));
}

}  // namespace conveyor::backend::opencl
