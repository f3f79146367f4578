#pragma once
// One OpenCL device, the facts about it the backend decides by, and the context everything
// computing on it shares (with its cache of built programs: PoCL and most drivers compile from
// source, slowly).
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "cl.hpp"

namespace conveyor::backend::opencl {

struct DeviceFacts {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string id;    ///< "opencl:N"
  std::string name;  ///< CL_DEVICE_NAME
  int version_major = 1;
  int version_minor = 0;
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  cl_ulong global_mem_bytes = 0;
  cl_ulong max_alloc_bytes = 0;
  cl_ulong local_mem_bytes = 0;
  std::size_t max_work_group = 1;
  bool fp64 = false;
  cl_device_svm_capabilities svm = 0;  ///< 0: no shared virtual memory

  bool at_least(int major, int minor) const {
    return version_major > major || (version_major == major && version_minor >= minor);
  }
  bool coarse_svm() const { return (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0; }
};

/// Reads the facts of one device (throws DeviceError when a mandatory query fails).
DeviceFacts query_facts(cl_platform_id platform, cl_device_id device, std::string id);

/// The cl_context of one device. Thread-safe; shared (shared_ptr) by the objects computing on the
/// device so that it outlives them.
class DeviceContext {
 public:
  explicit DeviceContext(DeviceFacts facts);

  const DeviceFacts& facts() const { return facts_; }
  cl_context get() const { return context_.get(); }
  /// A new in-order queue with profiling enabled (one per user: clFinish must not wait for others).
  Queue make_queue() const;
  /// A kernel of the program built from `source` with `options`; each program is built once per
  /// context. A build failure throws DeviceError with the compiler's log.
  Kernel kernel(std::string_view source, const char* name, std::string_view options = {});

 private:
  cl_program program(std::string_view source, std::string_view options);

  DeviceFacts facts_;
  Context context_;
  std::mutex mutex_;
  std::map<std::string, Program, std::less<>> programs_;
};

}  // namespace conveyor::backend::opencl
