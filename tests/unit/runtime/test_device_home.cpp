// Data whose home is device memory (Runtime::register_device_bytes), on the emulated device: its
// "device memory" is host memory it hands out (EmulatedDevice::hand_out), so a test reads the
// home directly. Tasks on the home device use it in place; CPU tasks get a host copy; wait_all,
// unregister and the runtime's end leave the latest values in the device memory; eviction never
// takes it; bad registrations are one-line UsageErrors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/backends/per_device.hpp"
#include "unit/runtime/cuda_test_kernels.hpp"
#include "unit/runtime/device_codelets.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

constexpr std::size_t kN = 256;  // ints: 1 KiB

// A runtime with `devices` emulated devices ("emu:0", ...) whose drivers the test can reach.
struct HomeRig {
  std::vector<test::EmulatedDevice*> devices;
  std::unique_ptr<Runtime> rt;
};

HomeRig make_rig(RuntimeOptions o, int devices = 1) {
  o.pin = false;
  o.perf_models = "none";
  HomeRig rig;
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  for (int i = 0; i < devices; ++i) {
    auto d = std::make_unique<test::EmulatedDevice>("emu:" + std::to_string(i));
    rig.devices.push_back(d.get());
    drivers.push_back(std::move(d));
  }
  rig.rt = runtime::RuntimeAccess::make(std::move(o), std::move(drivers));
  return rig;
}

// Device memory of `device` holding 0, 1, ..., kN - 1.
std::shared_ptr<std::byte[]> home_block(test::EmulatedDevice& device) {
  auto block = device.hand_out(kN * sizeof(int));
  int* x = reinterpret_cast<int*>(block.get());
  std::iota(x, x + kN, 0);
  return block;
}

const int* ints(const std::shared_ptr<std::byte[]>& block) {
  return reinterpret_cast<const int*>(block.get());
}

// Device tasks on the emulated device, everything else on the CPU workers.
RuntimeOptions offload(std::vector<std::string> codelets, int cpus = 1) {
  RuntimeOptions o;
  o.cpus = cpus;
  o.scheduler = "offload";
  o.offload = std::move(codelets);
  return o;
}

// x *= 2 on the CPUs only.
Codelet cpu_scale() {
  Codelet c("cpu_scale");
  c.cpu([](const TaskContext& t) {
    int* x = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] *= 2;
  });
  return c;
}

// Copies buffer 0 (Read) into `*out`, on the CPUs only.
Codelet cpu_read(std::vector<int>* out) {
  Codelet c("cpu_read");
  c.cpu([out](const TaskContext& t) {
    const int* x = t.data<int>(0);
    out->assign(x, x + t.buffer(0).rows);
  });
  return c;
}

TEST(DeviceHome, TasksOnTheHomeDeviceUseItInPlace) {
  HomeRig rig = make_rig(offload({"add_one"}, 0));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  EXPECT_EQ(x.home_device(), "emu:0");
  EXPECT_EQ(x.host(), nullptr);
  Codelet add_one = test::add_one_codelet();
  for (int i = 0; i < 5; ++i) rig.rt->submit(add_one, {{x, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.tasks, 5u);
  EXPECT_EQ(s.total_copies(), 0u);
  EXPECT_EQ(s.device_allocations, 0u);  // the home is the user's block
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], static_cast<int>(i) + 5);
  rig.rt->unregister(x);
  EXPECT_EQ(rig.rt->stats().total_copies(), 0u);
}

TEST(DeviceHome, DiscardLeavesTheHomeAsItIs) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet add_one = test::add_one_codelet();
  rig.rt->submit(add_one, {{x, Access::ReadWrite}});
  TaskId last = rig.rt->submit(add_one, {{x, Access::ReadWrite}});
  rig.rt->discard(x);
  EXPECT_TRUE(rig.rt->finished(last));
  rig.rt->unregister(x);
  EXPECT_EQ(rig.rt->stats().total_copies(), 0u);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], static_cast<int>(i) + 2);
}

TEST(DeviceHome, ACpuTaskReadingItCopiesItOutOnce) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet add_one = test::add_one_codelet();
  std::vector<int> first, second;
  Codelet read_first = cpu_read(&first), read_second = cpu_read(&second);
  rig.rt->submit(add_one, {{x, Access::ReadWrite}});
  rig.rt->submit(read_first, {{x, Access::Read}});
  rig.rt->submit(read_second, {{x, Access::Read}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2h_copies, 1u);
  EXPECT_EQ(s.h2d_copies, 0u);  // the home stayed valid: nothing to bring back
  ASSERT_EQ(first.size(), kN);
  for (std::size_t i = 0; i < kN; ++i) {
    ASSERT_EQ(first[i], static_cast<int>(i) + 1);
    ASSERT_EQ(ints(block)[i], static_cast<int>(i) + 1);
  }
  EXPECT_EQ(second, first);
}

TEST(DeviceHome, ACpuWriteThenADeviceTaskMakesTheHomeCurrentAgain) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet add_one = test::add_one_codelet(), scale = cpu_scale();
  rig.rt->submit(scale, {{x, Access::ReadWrite}});    // copied out, doubled on the host
  rig.rt->submit(add_one, {{x, Access::ReadWrite}});  // copied back in, then in place
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2h_copies, 1u);
  EXPECT_EQ(s.h2d_copies, 1u);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * static_cast<int>(i) + 1);
}

TEST(DeviceHome, WaitAllBringsACpuResultHome) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet scale = cpu_scale();
  rig.rt->submit(scale, {{x, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2h_copies, 1u);
  EXPECT_EQ(s.h2d_copies, 1u);  // the result, back into the device memory
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * static_cast<int>(i));
  rig.rt->wait_all();  // nothing left to copy
  EXPECT_EQ(rig.rt->stats().total_copies(), 2u);
}

TEST(DeviceHome, UnregisterLeavesTheDeviceMemoryCurrent) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet add_one = test::add_one_codelet(), scale = cpu_scale();
  rig.rt->submit(add_one, {{x, Access::ReadWrite}});
  rig.rt->submit(scale, {{x, Access::ReadWrite}});
  rig.rt->unregister(x);  // no wait_all
  EXPECT_FALSE(x.registered());
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * (static_cast<int>(i) + 1));
  EXPECT_EQ(rig.rt->stats().h2d_copies, 1u);
}

TEST(DeviceHome, TheRuntimesEndLeavesTheDeviceMemoryCurrent) {
  std::shared_ptr<std::byte[]> block;
  {
    HomeRig rig = make_rig(offload({"add_one"}));
    block = home_block(*rig.devices[0]);
    Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
    Codelet scale = cpu_scale();
    rig.rt->submit(scale, {{x, Access::ReadWrite}});
  }
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * static_cast<int>(i));
}

TEST(DeviceHome, AcquireGivesAHostCopyAndAWriteGoesHome) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  {
    HostAccess read = rig.rt->acquire(x, Access::Read);
    ASSERT_NE(read.data(), nullptr);
    EXPECT_NE(read.data(), static_cast<void*>(block.get()));
    EXPECT_EQ(read.as<int>()[7], 7);
  }
  {
    HostAccess write = rig.rt->acquire(x, Access::ReadWrite);
    write.as<int>()[7] = -7;
  }
  rig.rt->wait_all();
  EXPECT_EQ(ints(block)[7], -7);
  EXPECT_EQ(ints(block)[8], 8);
}

TEST(DeviceHome, AMatrixIsUsedInPlaceByItsDevice) {
  HomeRig rig = make_rig(offload({"scale"}, 0));
  constexpr std::size_t rows = 8, cols = 4;
  auto block = rig.devices[0]->hand_out(rows * cols * sizeof(int));
  int* m = reinterpret_cast<int*>(block.get());
  std::iota(m, m + rows * cols, 1);
  Data a = rig.rt->register_device_matrix("emu:0", m, rows, cols, rows, "a");
  EXPECT_EQ(a.rows(), rows);
  EXPECT_EQ(a.cols(), cols);
  Codelet scale = test::scale_codelet();
  rig.rt->submit(scale, {{a, Access::ReadWrite}});
  rig.rt->wait_all();
  EXPECT_EQ(rig.rt->stats().total_copies(), 0u);
  for (std::size_t i = 0; i < rows * cols; ++i) ASSERT_EQ(m[i], 2 * static_cast<int>(i + 1));
}

TEST(DeviceHome, EvictionNeverTakesTheHome) {
  // Room for three 1 KiB replicas besides the home (which does not count); eight host vectors,
  // twice over, each added into the home on the device: the host vectors are evicted (clean: no
  // copy back), the home never (it is Modified throughout: evicting it would write it back).
  RuntimeOptions o = offload({"accumulate"}, 0);
  o.device_memory_limit = 3 * kN * sizeof(int);
  HomeRig rig = make_rig(o);
  auto block = home_block(*rig.devices[0]);
  Data y = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "y");
  constexpr int kInputs = 8;
  std::vector<std::vector<int>> inputs(kInputs, std::vector<int>(kN));
  std::vector<Data> xs;
  for (int k = 0; k < kInputs; ++k) {
    std::fill(inputs[k].begin(), inputs[k].end(), k + 1);
    xs.push_back(rig.rt->register_vector(inputs[k].data(), kN, "x" + std::to_string(k)));
  }
  Codelet accumulate = test::accumulate_codelet();
  for (int round = 0; round < 2; ++round)
    for (const Data& x : xs)
      rig.rt->submit(accumulate, {{x, Access::Read}, {y, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_GT(s.evictions, 0u);
  EXPECT_EQ(s.write_backs, 0u);
  EXPECT_EQ(s.d2h_copies, 0u);
  // Each input in once per round at most; the second round finds at most three still there.
  EXPECT_GE(s.h2d_copies, kInputs + kInputs - 3u);
  EXPECT_LE(s.h2d_copies, 2u * kInputs);
  const int added = 2 * kInputs * (kInputs + 1) / 2;
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], static_cast<int>(i) + added);
}

TEST(DeviceHome, AnotherDeviceGetsACopyStagedThroughTheHost) {
  // Homed on emu:0, doubled on emu:1: round-robin deals the first device task to the second
  // device worker (the codelet fails anywhere else, which the checks below would show).
  RuntimeOptions o;
  o.cpus = 0;
  o.scheduler = "round-robin";
  HomeRig rig = make_rig(o, 2);
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet scale("scale_on_1");
  scale.cuda([](const TaskContext& t) {
    if (t.device() != "emu:1") throw DeviceError("placed on " + std::string(t.device()));
    int* v = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) v[i] *= 2;
  });
  rig.rt->submit(scale, {{x, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2h_copies, 2u);  // home -> host staging, then emu:1 -> host at wait_all
  EXPECT_EQ(s.h2d_copies, 2u);  // host -> emu:1, then host -> home
  EXPECT_EQ(s.d2d_copies, 0u);  // host-staged (the default)
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * static_cast<int>(i));
}

TEST(DeviceHome, APeerCopyReadsTheHomeDirectly) {
  RuntimeOptions o;
  o.cpus = 0;
  o.scheduler = "round-robin";  // the first device task to emu:1, as above
  o.device_copy = DeviceCopy::PeerCopy;
  HomeRig rig = make_rig(o, 2);
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet scale = test::scale_codelet();
  rig.rt->submit(scale, {{x, Access::ReadWrite}});
  rig.rt->wait_all();
  RuntimeStats s = rig.rt->stats();
  EXPECT_EQ(s.d2d_copies, 1u);  // emu:0's home -> emu:1
  EXPECT_EQ(s.d2h_copies, 1u);  // wait_all: emu:1 -> host -> home
  EXPECT_EQ(s.h2d_copies, 1u);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], 2 * static_cast<int>(i));
}

TEST(DeviceHome, AFailedWriteOnAnotherDeviceLeavesTheHomeAsItWas) {
  RuntimeOptions o;
  o.cpus = 0;
  o.scheduler = "round-robin";  // the first device task to emu:1, as above
  HomeRig rig = make_rig(o, 2);
  auto block = home_block(*rig.devices[0]);
  Data x = rig.rt->register_device_vector("emu:0", reinterpret_cast<int*>(block.get()), kN, "x");
  Codelet clobber("clobber");
  clobber.cuda([](const TaskContext& t) {
    int* v = t.data<int>(0);
    std::fill(v, v + t.buffer(0).rows, 99);
    throw DeviceError("emulated kernel failure after writing");
  });
  rig.rt->submit(clobber, {{x, Access::ReadWrite}});
  EXPECT_THROW(rig.rt->wait_all(), Error);
  rig.rt->unregister(x);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ints(block)[i], static_cast<int>(i));
}

// One line naming what is wrong.
template <typename Fn>
std::string usage_error(Fn fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  ADD_FAILURE() << "no UsageError";
  return {};
}

TEST(DeviceHome, BadRegistrationsAreUsageErrors) {
  HomeRig rig = make_rig(offload({"add_one"}));
  auto block = home_block(*rig.devices[0]);
  int* p = reinterpret_cast<int*>(block.get());
  std::vector<int> host(kN);
  EXPECT_NE(usage_error([&] {
              rig.rt->register_device_vector("cuda:7", p, kN, "x");
            }).find("no device 'cuda:7' in this runtime (its devices: emu:0)"),
            std::string::npos);
  EXPECT_NE(usage_error([&] {
              rig.rt->register_device_vector("emu:0", host.data(), kN, "x");
            }).find("emu:0: not memory of this device"),
            std::string::npos);
  EXPECT_NE(usage_error([&] {
              rig.rt->register_device_vector("emu:0", p, 2 * kN, "x");
            }).find(" in a block of "),
            std::string::npos);
  EXPECT_NE(usage_error([&] {
              rig.rt->register_device_matrix("emu:0", p, 8, 20, 16, "m");  // past the block
            }).find(" in a block of "),
            std::string::npos);
  Data m = rig.rt->register_device_matrix("emu:0", p, 16, 16, 16, "m");
  EXPECT_NE(usage_error([&] { rig.rt->partition(m, 8, 8); }).find("has its home on emu:0"),
            std::string::npos);

  RuntimeOptions naive = offload({"add_one"});
  naive.coherence = Coherence::Naive;
  HomeRig naive_rig = make_rig(naive);
  auto naive_block = home_block(*naive_rig.devices[0]);
  EXPECT_NE(usage_error([&] {
              naive_rig.rt->register_device_vector(
                  "emu:0", reinterpret_cast<int*>(naive_block.get()), kN, "x");
            }).find("needs coherence 'coherent'"),
            std::string::npos);
}

TEST(DeviceHome, OpenClDevicesRefuseOutsideMemory) {
  bool present = false;
  for (const auto& d : all_devices()) present |= d->info().id == "opencl:0";
  if (!present) GTEST_SKIP() << "opencl:0 is not present on this machine";
  RuntimeOptions o;
  o.cpus = 1;
  o.pin = false;
  o.devices = {"opencl:0"};
  o.perf_models = "none";
  Runtime rt(o);
  std::vector<int> v(kN);
  EXPECT_NE(usage_error([&] {
              rt.register_device_vector("opencl:0", v.data(), kN, "x");
            }).find("register 'x': opencl:0 cannot take memory allocated outside the runtime"),
            std::string::npos);
}

// The same on a real GPU, where one is present: cudaMalloc'd memory used in place by cuda:0's
// kernels, copied out for a CPU task and back, host memory refused.
TEST(DeviceHome, OnCudaTheHomeIsUsedInPlace) {
  bool present = false;
  for (const auto& d : all_devices()) present |= d->info().id == "cuda:0";
  if (!present) GTEST_SKIP() << "cuda:0 is not present on this machine";
  std::vector<int> values(kN);
  std::iota(values.begin(), values.end(), 0);
  std::unique_ptr<void, void (*)(void*)> block(test::cuda::device_alloc(0, kN * sizeof(int)),
                                               test::cuda::device_free);
  test::cuda::copy_to_device(block.get(), values.data(), kN * sizeof(int));
  {
    RuntimeOptions o = offload({"add_one"});
    o.devices = {"cuda:0"};
    o.pin = false;
    o.perf_models = "none";
    Runtime rt(o);
    EXPECT_NE(usage_error([&] {
                rt.register_device_vector("cuda:0", values.data(), kN, "h");
              }).find("is host memory"),
              std::string::npos);
    Data x = rt.register_device_vector("cuda:0", static_cast<int*>(block.get()), kN, "x");
    Codelet add_one = test::add_one_codelet(), scale = cpu_scale();
    for (int i = 0; i < 3; ++i) rt.submit(add_one, {{x, Access::ReadWrite}});
    rt.submit(scale, {{x, Access::ReadWrite}});    // one copy out
    rt.submit(add_one, {{x, Access::ReadWrite}});  // one copy back in
    rt.wait_all();
    RuntimeStats s = rt.stats();
    EXPECT_EQ(s.d2h_copies, 1u);
    EXPECT_EQ(s.h2d_copies, 1u);
    EXPECT_EQ(s.device_allocations, 0u);
    rt.unregister(x);
  }
  test::cuda::copy_from_device(values.data(), block.get(), kN * sizeof(int));
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(values[i], 2 * (static_cast<int>(i) + 3) + 1);
}

}  // namespace
}  // namespace conveyor
