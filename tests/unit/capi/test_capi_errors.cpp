// The C interface's error paths: every bad input gives a status and a message naming the
// problem, nothing aborts, and the runtime stays usable afterwards.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "unit/capi/capi_test_util.hpp"

namespace conveyor::test {
namespace {

int succeed(void* const*, int) { return 0; }
int fail_with_3(void* const*, int) { return 3; }
int mark(void* const* args, int) {
  *static_cast<int*>(args[0]) = 1;
  return 0;
}

TEST(CapiErrors, NullRuntimeIsRefusedByEveryCall) {
  conveyor_stats stats;
  int x = 0;
  void* p = &x;
  conveyor_map_desc map = conveyor_make_map_desc(&x, 0, sizeof x, CONVEYOR_MAP_TO);
  conveyor_kernel_desc desc = host_kernel("k", succeed);
  EXPECT_EQ(conveyor_wait(nullptr), CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("runtime is NULL"), std::string::npos) << last_error();
  EXPECT_EQ(conveyor_get_stats(nullptr, &stats), CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_reset_stats(nullptr), CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_register(nullptr, &x, sizeof x), CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_unregister(nullptr, &x), CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_tasklet_create(nullptr, succeed, 0, nullptr, 0, nullptr, 1, &p),
            CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_tasklet_target_create(nullptr, nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 1,
                                           &map, 1),
            CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_kernel_create(nullptr, &desc), nullptr);
  EXPECT_EQ(conveyor_kernel_get(nullptr, "k"), nullptr);
  EXPECT_EQ(conveyor_kernel_set_work_size(nullptr, 1, nullptr, nullptr),
            CONVEYOR_ERROR_INVALID_ARGUMENT);
  conveyor_runtime_destroy(nullptr);  // ignored
}

// Regression found by fuzz/capi_arguments.cpp (fuzz/corpus/capi_arguments/crash_status_string):
// a C caller may pass any int as a conveyor_status (C enums are ints), and the switch read the
// parameter as the C++ enum, undefined for a value outside its range (UBSan: "load of value
// 3057006134, which is not a valid value for type 'conveyor_status'"); now it reads the int. From
// C++ only values inside the enum's range (0-15) can be formed without undefined behaviour: those
// that name no status must give "unknown status" too (the fuzzer passes any int).
TEST(CapiErrors, StatusStringOfAnUnknownStatusIsUnknown) {
  for (int value : {10, 12, 15})
    EXPECT_STREQ(conveyor_status_string(static_cast<conveyor_status>(value)), "unknown status")
        << value;
  EXPECT_STREQ(conveyor_status_string(CONVEYOR_ERROR_OVERLAP), "overlapping range");
}

TEST(CapiErrors, BadOptionsGiveNoRuntimeAndSayWhy) {
  conveyor_options o;
  conveyor_options_init(&o);
  o.devices = "opencl:42";
  EXPECT_EQ(conveyor_runtime_create(&o), nullptr);
  EXPECT_NE(last_error().find("opencl:42"), std::string::npos) << last_error();
  conveyor_options_init(&o);
  o.scheduler = "fastest";
  EXPECT_EQ(conveyor_runtime_create(&o), nullptr);
  EXPECT_NE(last_error().find("fastest"), std::string::npos) << last_error();
  conveyor_options_init(&o);
  o.coherence = "sometimes";
  EXPECT_EQ(conveyor_runtime_create(&o), nullptr);
  EXPECT_NE(last_error().find("sometimes"), std::string::npos) << last_error();
  conveyor_options_init(&o);
  o.cpus = -5;
  EXPECT_EQ(conveyor_runtime_create(&o), nullptr);
  EXPECT_NE(last_error().find("cpus"), std::string::npos) << last_error();
}

TEST(CapiErrors, BadMapDescriptorsAreRefused) {
  CRuntime rt = make_c_runtime();
  conveyor_kernel_desc d = host_kernel("k", succeed);
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(16);
  conveyor_map_desc bad = conveyor_make_map_desc(x.data(), 0, 64, 7);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1, &bad, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("direction 7"), std::string::npos) << last_error();
  conveyor_map_desc empty = conveyor_make_map_desc(x.data(), 0, 0, CONVEYOR_MAP_TO);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1, &empty, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("size is 0"), std::string::npos) << last_error();
  conveyor_map_desc null = conveyor_make_map_desc(nullptr, 0, 4, CONVEYOR_MAP_TO);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1, &null, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  conveyor_map_desc good = conveyor_make_map_desc(x.data(), 0, 64, CONVEYOR_MAP_TO);
  conveyor_arg beyond = conveyor_arg_map(1);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 1, &beyond, 0, nullptr, 0, nullptr, 1, &good, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("map index 1"), std::string::npos) << last_error();
  std::vector<char> big(300);
  conveyor_arg huge = conveyor_arg_value(big.data(), big.size());
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 1, &huge, 0, nullptr, 0, nullptr, 1, &good, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
}

// Regression found while fuzzing the C interface (docs/fuzzing.md): host_ptr + offset was computed
// as a pointer, undefined when the offset wraps around memory (UBSan: "addition of unsigned offset
// ... overflowed"), and the wrapped range was then mapped.
TEST(CapiErrors, MapOffsetThatWrapsAroundMemoryIsRefused) {
  CRuntime rt = make_c_runtime();
  conveyor_kernel_desc d = host_kernel("k", succeed);
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(16);
  conveyor_map_desc wraps = conveyor_make_map_desc(x.data(), SIZE_MAX - 8, 16, CONVEYOR_MAP_TO);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1, &wraps, 1),
      CONVEYOR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("wraps around memory"), std::string::npos) << last_error();
  conveyor_map_desc inside = conveyor_make_map_desc(x.data(), 16, 16, CONVEYOR_MAP_TO);
  EXPECT_EQ(conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1,
                                           &inside, 1),
            CONVEYOR_OK)
      << last_error();
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
}

TEST(CapiErrors, UnknownKernelNamesTheKnownOnes) {
  CRuntime rt = make_c_runtime();
  conveyor_kernel_desc d = host_kernel("potrf", succeed);
  ASSERT_NE(conveyor_kernel_create(rt.get(), &d), nullptr) << last_error();
  EXPECT_EQ(conveyor_kernel_get(rt.get(), "gemm"), nullptr);
  EXPECT_NE(last_error().find("no kernel named 'gemm' (kernels: potrf)"), std::string::npos)
      << last_error();
  EXPECT_NE(conveyor_kernel_get(rt.get(), "potrf"), nullptr);
  // A second kernel of the same name, and one without an implementation, are refused.
  EXPECT_EQ(conveyor_kernel_create(rt.get(), &d), nullptr);
  EXPECT_NE(last_error().find("exists already"), std::string::npos) << last_error();
  conveyor_kernel_desc none = host_kernel("none", nullptr);
  EXPECT_EQ(conveyor_kernel_create(rt.get(), &none), nullptr);
  EXPECT_NE(last_error().find("no implementation"), std::string::npos) << last_error();
}

TEST(CapiErrors, KernelNoWorkerCanRunIsRefusedAtSubmission) {
  CRuntime rt = make_c_runtime(1);  // CPUs only
  conveyor_kernel_desc d = host_kernel("device_only", nullptr);
  d.opencl_source = "__kernel void device_only(__global float* x) { x[0] = 1; }";
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  if (k == nullptr) {  // a build without OpenCL refuses the kernel itself
    EXPECT_NE(last_error().find("without OpenCL"), std::string::npos) << last_error();
    return;
  }
  float x = 0;
  conveyor_map_desc map = conveyor_make_map_desc(&x, 0, sizeof x, CONVEYOR_MAP_FROM);
  conveyor_arg arg = conveyor_arg_map(0);
  EXPECT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 1, &arg, 0, nullptr, 0, nullptr, 1, &map, 1),
      CONVEYOR_ERROR_USAGE);
  EXPECT_NE(last_error().find("device_only"), std::string::npos) << last_error();
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
}

TEST(CapiErrors, FailingTaskletIsReportedByWaitAndItsDependentsAreNotRun) {
  CRuntime rt = make_c_runtime();
  int x = 0, ran = 0;
  void* dep = &x;
  ASSERT_EQ(conveyor_register(rt.get(), &x, sizeof x), CONVEYOR_OK) << last_error();
  ASSERT_EQ(conveyor_tasklet_create(rt.get(), fail_with_3, 0, nullptr, 0, nullptr, 1, &dep),
            CONVEYOR_OK);
  void* args[] = {&ran};
  ASSERT_EQ(conveyor_tasklet_create(rt.get(), mark, 1, args, 1, &dep, 0, nullptr), CONVEYOR_OK);
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_ERROR_TASK_FAILED);
  EXPECT_NE(last_error().find("returned 3"), std::string::npos) << last_error();
  EXPECT_EQ(ran, 0);
  // The failure was reported once; the runtime goes on.
  ASSERT_EQ(conveyor_tasklet_create(rt.get(), mark, 1, args, 1, &dep, 0, nullptr), CONVEYOR_OK);
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(ran, 1);
}

TEST(CapiErrors, OverlappingRangesAreRefusedIdenticalOnesShared) {
  CRuntime rt = make_c_runtime();
  std::vector<char> buffer(256);
  char* p = buffer.data();
  EXPECT_EQ(conveyor_register(rt.get(), p, 100), CONVEYOR_OK);
  EXPECT_EQ(conveyor_register(rt.get(), p, 100), CONVEYOR_OK);  // the same range again
  EXPECT_EQ(conveyor_register(rt.get(), p + 50, 100), CONVEYOR_ERROR_OVERLAP);
  EXPECT_NE(last_error().find("overlaps"), std::string::npos) << last_error();
  EXPECT_EQ(conveyor_register(rt.get(), p, 60), CONVEYOR_ERROR_OVERLAP);
  EXPECT_EQ(conveyor_register(rt.get(), p + 100, 100), CONVEYOR_OK);  // adjacent is fine
  conveyor_kernel_desc d = host_kernel("k", succeed);
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  conveyor_map_desc inside = conveyor_make_map_desc(p, 10, 20, CONVEYOR_MAP_TO);
  EXPECT_EQ(conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1,
                                           &inside, 1),
            CONVEYOR_ERROR_OVERLAP);
  // After unregistering, the bytes may be mapped with another shape.
  EXPECT_EQ(conveyor_unregister(rt.get(), p), CONVEYOR_OK) << last_error();
  EXPECT_EQ(conveyor_tasklet_target_create(rt.get(), k, 0, nullptr, 0, nullptr, 0, nullptr, 1,
                                           &inside, 1),
            CONVEYOR_OK)
      << last_error();
  EXPECT_EQ(conveyor_unregister(rt.get(), p + 1), CONVEYOR_ERROR_UNKNOWN_ADDRESS);
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
}

TEST(CapiErrors, DependencyOutsideEveryRangeIsRefused) {
  CRuntime rt = make_c_runtime();
  int x = 0;
  void* dep = &x;
  EXPECT_EQ(conveyor_tasklet_create(rt.get(), succeed, 0, nullptr, 1, &dep, 0, nullptr),
            CONVEYOR_ERROR_UNKNOWN_ADDRESS);
  EXPECT_NE(last_error().find("conveyor_register"), std::string::npos) << last_error();
}

TEST(CapiErrors, LastErrorIsPerThread) {
  EXPECT_EQ(conveyor_wait(nullptr), CONVEYOR_ERROR_INVALID_ARGUMENT);
  std::string seen_by_other = "unset";
  std::thread([&] { seen_by_other = conveyor_last_error(); }).join();
  EXPECT_EQ(seen_by_other, "");
  EXPECT_NE(last_error(), "");
  EXPECT_STREQ(conveyor_status_string(CONVEYOR_ERROR_OVERLAP), "overlapping range");
}

TEST(CapiErrors, UnknownOpenclKernelNameFailsTheTaskletNotTheProcess) {
  if (!has_c_device("opencl:0")) GTEST_SKIP() << "no OpenCL device";
  CRuntime rt = make_c_runtime(0, "opencl:0");
  conveyor_kernel_desc d;
  std::memset(&d, 0, sizeof d);
  d.name = "scale";
  d.opencl_source = "__kernel void scale(__global float* x) { x[get_global_id(0)] *= 2; }";
  d.opencl_kernel = "scale_typo";
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(8, 1.0f);
  conveyor_map_desc map = conveyor_make_map_desc(x.data(), 0, 32, CONVEYOR_MAP_TOFROM);
  conveyor_arg arg = conveyor_arg_map(0);
  ASSERT_EQ(
      conveyor_tasklet_target_create(rt.get(), k, 1, &arg, 0, nullptr, 0, nullptr, 1, &map, 1),
      CONVEYOR_OK);
  EXPECT_EQ(conveyor_wait(rt.get()), CONVEYOR_ERROR_TASK_FAILED);
  EXPECT_NE(last_error().find("scale"), std::string::npos) << last_error();
  EXPECT_EQ(x[0], 1.0f);
}

}  // namespace
}  // namespace conveyor::test
