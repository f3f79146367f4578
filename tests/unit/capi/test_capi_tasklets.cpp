// Tasklets through the C interface: order from the dependency lists, arguments and values,
// CPU fallbacks, async, and the copies the coherent and naive policies make for mapped ranges
// (on the OpenCL device when there is one).
#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "unit/capi/capi_test_util.hpp"

namespace conveyor::test {
namespace {

// x = 3 x + i: the result depends on the order the tasklets ran in.
int step(void* const* args, int) {
  auto* x = static_cast<long*>(args[0]);
  *x = 3 * *x + *static_cast<const long*>(args[1]);
  return 0;
}

TEST(CapiTasklets, HostTaskletsRunInTheOrderTheirDependenciesSay) {
  CRuntime rt = make_c_runtime(2);
  long x = 1;
  std::vector<long> increments(30);  // 3^30 still fits a long
  std::iota(increments.begin(), increments.end(), 0);
  void* dep = &x;
  ASSERT_EQ(conveyor_register(rt.get(), &x, sizeof x), CONVEYOR_OK) << last_error();
  for (long& i : increments) {
    void* args[] = {&x, &i};
    ASSERT_EQ(conveyor_tasklet_create(rt.get(), step, 2, args, 0, nullptr, 1, &dep), CONVEYOR_OK)
        << last_error();
  }
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  long check = 1;
  for (long i : increments) check = 3 * check + i;
  EXPECT_EQ(x, check);
  conveyor_stats s;
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.tasks, increments.size());
  EXPECT_EQ(s.h2d_copies + s.d2h_copies, 0u);
}

int increment(void* const* args, int) {
  ++*static_cast<long*>(args[0]);
  return 0;
}

TEST(CapiTasklets, ThreadsMayRegisterAndSubmitOnOneRuntimeAtOnce) {
  CRuntime rt = make_c_runtime(2);
  constexpr int kThreads = 4, kTasklets = 200;
  std::vector<long> counters(kThreads * 8, 0);  // 8 apart: each thread's range is its own
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      long* counter = &counters[static_cast<std::size_t>(t) * 8];
      void* dep = counter;
      void* args[] = {counter};
      failures[t] += conveyor_register(rt.get(), counter, sizeof(long)) != CONVEYOR_OK;
      for (int k = 0; k < kTasklets; ++k)
        failures[t] += conveyor_tasklet_create(rt.get(), increment, 1, args, 0, nullptr, 1, &dep) !=
                       CONVEYOR_OK;
    });
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0);
    EXPECT_EQ(counters[static_cast<std::size_t>(t) * 8], kTasklets);  // no update lost
  }
}

int sum_nine(void* const* args, int nargs) {
  if (nargs != 9) return 1;
  long total = 0;
  for (int i = 1; i < 9; ++i) total += *static_cast<const long*>(args[i]);
  *static_cast<long*>(args[0]) = total;
  return 0;
}

TEST(CapiTasklets, LongArgumentListsReachTheHostFunction) {
  CRuntime rt = make_c_runtime(1);
  long result = 0, values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  void* args[9] = {&result};
  for (int i = 0; i < 8; ++i) args[i + 1] = &values[i];
  ASSERT_EQ(conveyor_tasklet_create(rt.get(), sum_nine, 9, args, 0, nullptr, 0, nullptr),
            CONVEYOR_OK);
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(result, 36);
}

// y = a x + y, on the host: args are x, y (host pointers of the maps) and &a.
int axpy_host(void* const* args, int nargs) {
  if (nargs != 4) return 1;
  auto* x = static_cast<const float*>(args[0]);
  auto* y = static_cast<float*>(args[1]);
  float a = *static_cast<const float*>(args[2]);
  int n = *static_cast<const int*>(args[3]);
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
  return 0;
}

const char* kAxpySource =
    "__kernel void axpy(__global const float* x, __global float* y, float a, int n) {\n"
    "  size_t i = get_global_id(0); if (i < n) y[i] += a * x[i]; }\n";

conveyor_kernel* make_axpy(conveyor_runtime* rt, bool with_opencl, int n) {
  conveyor_kernel_desc d = host_kernel("axpy", axpy_host);
  if (with_opencl) d.opencl_source = kAxpySource;
  d.global_size[0] = static_cast<size_t>(n);
  return conveyor_kernel_create(rt, &d);
}

// Submits y = a x + y `times` times over the same two ranges.
void submit_axpys(conveyor_runtime* rt, conveyor_kernel* k, std::vector<float>& x,
                  std::vector<float>& y, int times, int async) {
  int n = static_cast<int>(x.size());
  float a = 2.0f;
  conveyor_map_desc maps[] = {
      conveyor_make_map_desc(x.data(), 0, x.size() * sizeof(float), CONVEYOR_MAP_TO),
      conveyor_make_map_desc(y.data(), 0, y.size() * sizeof(float), CONVEYOR_MAP_TOFROM)};
  conveyor_arg args[] = {conveyor_arg_map(0), conveyor_arg_map(1), conveyor_arg_value(&a, sizeof a),
                         conveyor_arg_value(&n, sizeof n)};
  void* in[] = {x.data()};
  void* out[] = {y.data()};
  for (int t = 0; t < times; ++t)
    ASSERT_EQ(conveyor_tasklet_target_create(rt, k, 4, args, 1, in, 1, out, 2, maps, async),
              CONVEYOR_OK)
        << conveyor_last_error();
}

TEST(CapiTasklets, TargetTaskletRunsItsHostImplementationOnCpus) {
  CRuntime rt = make_c_runtime(2);
  conveyor_kernel* k = make_axpy(rt.get(), false, 100);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(100, 1.0f), y(100, 1.0f);
  submit_axpys(rt.get(), k, x, y, 3, 1);
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(y[0], 7.0f);
  EXPECT_EQ(y[99], 7.0f);
}

int g_unmapped = 0;

class CapiOpencl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_c_device("opencl:0")) GTEST_SKIP() << "no OpenCL device";
  }
};

TEST_F(CapiOpencl, CoherentRuntimeCopiesEachMappedRangeOnce) {
  // No CPU workers: every target tasklet runs on the device.
  CRuntime rt = make_c_runtime(0, "opencl:0");
  conveyor_kernel* k = make_axpy(rt.get(), true, 256);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(256, 1.0f), y(256, 1.0f);
  submit_axpys(rt.get(), k, x, y, 3, 1);
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(y[0], 7.0f);
  EXPECT_EQ(y[255], 7.0f);
  conveyor_stats s;
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.h2d_copies, 2u);  // x and y, once: the ranges are registered once
  EXPECT_EQ(s.d2h_copies, 1u);  // y, at the wait
  EXPECT_EQ(s.h2d_bytes, 2u * 256 * sizeof(float));
  EXPECT_EQ(s.tasks, 3u);
  ASSERT_EQ(conveyor_reset_stats(rt.get()), CONVEYOR_OK);
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.h2d_copies + s.d2h_copies + s.tasks, 0u);
}

TEST_F(CapiOpencl, ADiscardedRangeIsNotCopiedHome) {
  CRuntime rt = make_c_runtime(0, "opencl:0");
  conveyor_kernel* k = make_axpy(rt.get(), true, 64);
  std::vector<float> x(64, 1.0f), y(64, 1.0f);
  submit_axpys(rt.get(), k, x, y, 2, 1);
  ASSERT_EQ(conveyor_discard(rt.get(), y.data() + 10), CONVEYOR_OK) << last_error();
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(y[63], 1.0f);  // the device's 5 never came home
  conveyor_stats s;
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.d2h_copies, 0u);
  EXPECT_EQ(conveyor_discard(rt.get(), &g_unmapped), CONVEYOR_ERROR_UNKNOWN_ADDRESS);
}

TEST_F(CapiOpencl, NaiveRuntimeCopiesAroundEveryTasklet) {
  CRuntime rt = make_c_runtime(0, "opencl:0", nullptr, nullptr, "naive");
  conveyor_kernel* k = make_axpy(rt.get(), true, 64);
  std::vector<float> x(64, 1.0f), y(64, 1.0f);
  submit_axpys(rt.get(), k, x, y, 3, 1);
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(y[63], 7.0f);
  conveyor_stats s;
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.h2d_copies, 6u);
  EXPECT_EQ(s.d2h_copies, 3u);
}

TEST_F(CapiOpencl, SynchronousTaskletLeavesItsOutputInHostMemory) {
  CRuntime rt = make_c_runtime(0, "opencl:0");
  conveyor_kernel* k = make_axpy(rt.get(), true, 32);
  std::vector<float> x(32, 1.0f), y(32, 1.0f);
  submit_axpys(rt.get(), k, x, y, 1, 0);  // async = 0
  EXPECT_EQ(y[31], 3.0f);                 // read before any wait
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
}

float g_seen = 0;
int read_first(void* const* args, int) {
  g_seen = *static_cast<const float*>(args[0]);
  return 0;
}

TEST_F(CapiOpencl, HostTaskletSeesWhatADeviceTaskletWrote) {
  CRuntime rt = make_c_runtime(1, "opencl:0", "offload", "axpy");
  conveyor_kernel_desc d;
  std::memset(&d, 0, sizeof d);
  d.name = "axpy";
  d.opencl_source = kAxpySource;  // no host implementation: it can only run on the device
  d.global_size[0] = 16;
  conveyor_kernel* k = conveyor_kernel_create(rt.get(), &d);
  ASSERT_NE(k, nullptr) << last_error();
  std::vector<float> x(16, 1.0f), y(16, 1.0f);
  submit_axpys(rt.get(), k, x, y, 2, 1);
  g_seen = 0;
  void* args[] = {y.data()};
  void* in[] = {y.data() + 3};  // any address inside the range names it
  ASSERT_EQ(conveyor_tasklet_create(rt.get(), read_first, 1, args, 1, in, 0, nullptr), CONVEYOR_OK)
      << last_error();
  ASSERT_EQ(conveyor_wait(rt.get()), CONVEYOR_OK) << last_error();
  EXPECT_EQ(g_seen, 5.0f);
  conveyor_stats s;
  ASSERT_EQ(conveyor_get_stats(rt.get(), &s), CONVEYOR_OK);
  EXPECT_EQ(s.d2h_copies, 1u);  // brought home for the host tasklet; the wait has nothing left
}

}  // namespace
}  // namespace conveyor::test
