#pragma once
// Helpers of the C interface tests: a runtime owned by the test, small host functions.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "conveyor/conveyor.h"

namespace conveyor::test {

struct RuntimeDeleter {
  void operator()(conveyor_runtime* rt) const { conveyor_runtime_destroy(rt); }
};
using CRuntime = std::unique_ptr<conveyor_runtime, RuntimeDeleter>;

/// A runtime with `cpus` unpinned CPU workers and `devices`; fails the test when refused.
inline CRuntime make_c_runtime(int cpus = 2, const char* devices = nullptr,
                               const char* scheduler = nullptr, const char* offload = nullptr,
                               const char* coherence = nullptr) {
  conveyor_options o;
  conveyor_options_init(&o);
  o.cpus = cpus;
  o.pin = 0;
  o.devices = devices;
  o.scheduler = scheduler;
  o.offload = offload;
  o.coherence = coherence;
  CRuntime rt(conveyor_runtime_create(&o));
  EXPECT_NE(rt.get(), nullptr) << conveyor_last_error();
  return rt;
}

inline bool has_c_device(const char* id) {
  std::string list = std::string(",") + conveyor_device_list() + ",";
  return list.find(std::string(",") + id + ",") != std::string::npos;
}

inline std::string last_error() { return conveyor_last_error(); }

/// A kernel description with only a name and a host function.
inline conveyor_kernel_desc host_kernel(const char* name, conveyor_host_fn fn) {
  conveyor_kernel_desc d;
  std::memset(&d, 0, sizeof d);
  d.name = name;
  d.host = fn;
  return d;
}

}  // namespace conveyor::test
