#include "cl.hpp"

namespace conveyor::backend::opencl {
namespace {

// OpenCL strings include their terminating NUL and some drivers pad names with spaces.
std::string trimmed(std::vector<char> text) {
  std::string s(text.data());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  std::size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first);
}

cl_ulong profiling(cl_event event, cl_profiling_info param) {
  cl_ulong ns = 0;
  CONVEYOR_CL_CHECK(clGetEventProfilingInfo(event, param, sizeof(ns), &ns, nullptr));
  return ns;
}

}  // namespace

std::string device_string(cl_device_id device, cl_device_info param) {
  std::size_t size = 0;
  CONVEYOR_CL_CHECK(clGetDeviceInfo(device, param, 0, nullptr, &size));
  std::vector<char> text(size + 1, '\0');
  CONVEYOR_CL_CHECK(clGetDeviceInfo(device, param, size, text.data(), nullptr));
  return trimmed(std::move(text));
}

std::string platform_string(cl_platform_id platform, cl_platform_info param) {
  std::size_t size = 0;
  CONVEYOR_CL_CHECK(clGetPlatformInfo(platform, param, 0, nullptr, &size));
  std::vector<char> text(size + 1, '\0');
  CONVEYOR_CL_CHECK(clGetPlatformInfo(platform, param, size, text.data(), nullptr));
  return trimmed(std::move(text));
}

double event_seconds(cl_event event) { return event_span_seconds(event, event); }

double event_span_seconds(cl_event first, cl_event last) {
  cl_ulong start = profiling(first, CL_PROFILING_COMMAND_START);
  cl_ulong end = profiling(last, CL_PROFILING_COMMAND_END);
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

void launch_1d(cl_command_queue queue, cl_kernel kernel, std::size_t items, std::size_t local,
               cl_event* event) {
  std::size_t global = round_up(items, local);
  CONVEYOR_CL_CHECK(
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, event));
}

}  // namespace conveyor::backend::opencl
