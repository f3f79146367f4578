// The OpenCL backend: every device of every platform the ICD loader knows, numbered "opencl:N" in
// platform order. A machine without a platform (no ICD installed) simply has no OpenCL devices.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "opencl_device.hpp"

namespace conveyor::backend {
namespace opencl {
namespace {

std::string type_name(cl_device_type type) {
  std::string out;
  auto add = [&](cl_device_type bit, const char* name) {
    if (!(type & bit)) return;
    if (!out.empty()) out += '|';
    out += name;
  };
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
  add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
  return out.empty() ? "unknown" : out;
}

// "OpenCL 3.0 PoCL 3.1+debian Linux, None+Asserts, ..." -> "OpenCL 3.0 PoCL 3.1+debian": the
// version without the build details some platforms append.
std::string short_version(const std::string& version) {
  std::istringstream words(version);
  std::string word, out;
  for (int i = 0; i < 4 && words >> word; ++i) out += (out.empty() ? "" : " ") + word;
  return out;
}

DeviceInfo describe(const DeviceFacts& f, const std::string& platform_name,
                    const std::string& platform_version) {
  DeviceInfo info;
  info.id = f.id;
  info.kind = DeviceKind::OpenCL;
  info.name = f.name;
  info.platform = fmt::format("{} ({})", platform_name, short_version(platform_version));
  info.memory_bytes = f.global_mem_bytes;
  info.compute_units = static_cast<int>(f.compute_units);
  info.peak_gbs = 0;  // OpenCL has no portable query for memory bandwidth
  info.details =
      nlohmann::json{
          {"device_type", type_name(f.type)},
          {"vendor", device_string(f.device, CL_DEVICE_VENDOR)},
          {"device_version", device_string(f.device, CL_DEVICE_VERSION)},
          {"opencl_c_version", device_string(f.device, CL_DEVICE_OPENCL_C_VERSION)},
          {"driver_version", device_string(f.device, CL_DRIVER_VERSION)},
          {"platform_version", platform_version},
          {"max_alloc_bytes", f.max_alloc_bytes},
          {"local_mem_bytes", f.local_mem_bytes},
          {"max_work_group_size", f.max_work_group},
          {"max_clock_mhz", device_info_or<cl_uint>(f.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, 0)},
          {"fp64", f.fp64},
          {"svm",
           {{"coarse_grain_buffer", (f.svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0},
            {"fine_grain_buffer", (f.svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0},
            {"fine_grain_system", (f.svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) != 0},
            {"atomics", (f.svm & CL_DEVICE_SVM_ATOMICS) != 0}}},
      }
          .dump();
  return info;
}

std::vector<cl_platform_id> platform_ids(cl_int& status) {
  cl_uint count = 0;
  status = clGetPlatformIDs(0, nullptr, &count);
  if (status != CL_SUCCESS || count == 0) return {};
  std::vector<cl_platform_id> ids(count);
  status = clGetPlatformIDs(count, ids.data(), nullptr);
  if (status != CL_SUCCESS) return {};
  return ids;
}

std::vector<cl_device_id> device_ids(cl_platform_id platform) {
  cl_uint count = 0;
  cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND || (status == CL_SUCCESS && count == 0)) return {};
  CONVEYOR_CL_CHECK(status);
  std::vector<cl_device_id> ids(count);
  CONVEYOR_CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr));
  return ids;
}

class OpenCLBackend final : public Backend {
 public:
  OpenCLBackend() {
    cl_int status = CL_SUCCESS;
    std::vector<cl_platform_id> platforms = platform_ids(status);
    if (platforms.empty()) {
      // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no vendor driver is registered.
      status_ =
          status == CL_SUCCESS || status == -1001
              ? "no OpenCL platform found (install an ICD such as pocl-opencl-icd)"
              : fmt::format("clGetPlatformIDs failed: {} ({})", cl_error_name(status), status);
      return;
    }
    std::vector<std::string> problems;
    for (cl_platform_id platform : platforms) {
      try {
        add_platform(platform);
      } catch (const Error& e) {
        problems.push_back(e.what());
      }
    }
    if (devices_.empty() && problems.empty()) status_ = "OpenCL platforms found, but no devices";
    for (const auto& problem : problems)
      status_ += (status_.empty() ? "" : "; ") + std::string("platform skipped: ") + problem;
  }

  DeviceKind kind() const override { return DeviceKind::OpenCL; }
  const std::vector<std::shared_ptr<Device>>& devices() const override { return devices_; }
  std::string status() const override { return status_; }

 private:
  void add_platform(cl_platform_id platform) {
    std::string name = platform_string(platform, CL_PLATFORM_NAME);
    std::string version = platform_string(platform, CL_PLATFORM_VERSION);
    // All of a platform's devices are queried before any is added, so that ids stay dense.
    std::vector<std::shared_ptr<Device>> found;
    for (cl_device_id device : device_ids(platform)) {
      DeviceFacts facts =
          query_facts(platform, device, fmt::format("opencl:{}", devices_.size() + found.size()));
      DeviceInfo info = describe(facts, name, version);
      found.push_back(std::make_shared<OpenCLDevice>(std::move(facts), std::move(info)));
    }
    devices_.insert(devices_.end(), found.begin(), found.end());
  }

  std::vector<std::shared_ptr<Device>> devices_;
  std::string status_;
};

}  // namespace

OpenCLDevice::OpenCLDevice(DeviceFacts facts, DeviceInfo info) : facts_(std::move(facts)) {
  info_ = std::move(info);
}

std::shared_ptr<DeviceContext> OpenCLDevice::context() {
  std::lock_guard lock(mutex_);
  if (!context_) context_ = std::make_shared<DeviceContext>(facts_);
  return context_;
}

}  // namespace opencl

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<opencl::OpenCLBackend>(); }

}  // namespace conveyor::backend
