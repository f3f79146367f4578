// Failure paths: a throwing task, device memory running out, data used after unregister, bad
// shapes. Each gives a clear error and loses no data.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/cpu_options.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

using test::cpu_options;

Codelet add_one() {
  Codelet c("add_one");
  auto fn = [](const TaskContext& t) {
    auto* x = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] += 1;
  };
  c.cpu(fn).cuda(fn);  // the emulated device runs "cuda" implementations on host pointers
  return c;
}

TEST(RuntimeFailures, TaskExceptionReachesWaitAllNamingTheTask) {
  Runtime rt(cpu_options(2));
  std::vector<int> v(4, 0);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet boom("boom");
  boom.cpu([](const TaskContext&) { throw std::runtime_error("kaboom"); });
  rt.submit(add_one(), {{d, Access::ReadWrite}});
  rt.submit(boom, {{d, Access::ReadWrite}}, 0, "boom 7");
  rt.submit(add_one(), {{d, Access::ReadWrite}});  // depends on the failed task: not run
  try {
    rt.wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("boom 7"), std::string::npos) << what;
    EXPECT_NE(what.find("kaboom"), std::string::npos) << what;
    EXPECT_NE(what.find("1 dependent task not run"), std::string::npos) << what;
  }
  EXPECT_EQ(v, std::vector<int>(4, 1));
  // The runtime goes on working after reporting.
  rt.submit(add_one(), {{d, Access::ReadWrite}});
  EXPECT_NO_THROW(rt.wait_all());
  EXPECT_EQ(v, std::vector<int>(4, 2));
}

// Waits until `tasks` tasks have run, failed ones included (RuntimeStats::tasks counts a task in
// the same step that ends it), for at most 30 s. Not wait_all: that would report the failure and
// clear what it poisoned.
bool wait_for_tasks_run(const Runtime& rt, std::uint64_t tasks) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (rt.stats().tasks < tasks) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A reader submitted after its failed writer has ended has no edge to be cancelled through: the
// data's poisoned mark, kept until wait_all reports the failure, must stop it, or it runs on what
// the failed task left.
TEST(RuntimeFailures, AReaderSubmittedAfterItsFailedWriterEndedIsNotRun) {
  Codelet boom("boom");
  auto fail = [](const TaskContext&) { throw std::runtime_error("kaboom"); };
  boom.cpu(fail).cuda(fail);
  std::atomic<int> reads{0};
  Codelet read("read");
  auto count = [&reads](const TaskContext&) { ++reads; };
  read.cpu(count).cuda(count);
  for (bool on_device : {false, true}) {
    SCOPED_TRACE(on_device ? "on an emulated device" : "on CPU workers");
    RuntimeOptions options = cpu_options(2);
    if (on_device) options.cpus = 0;
    std::unique_ptr<Runtime> rt =
        on_device ? test::make_emulated_runtime(options) : std::make_unique<Runtime>(options);
    std::vector<int> v(4, 0);
    Data d = rt->register_vector(v.data(), v.size(), "v");
    reads = 0;
    rt->submit(boom, {{d, Access::ReadWrite}}, 0, "failing writer");
    ASSERT_TRUE(wait_for_tasks_run(*rt, 1)) << "the failing writer did not end within 30 s";
    rt->submit(read, {{d, Access::Read}}, 0, "late reader");
    try {
      rt->wait_all();
      ADD_FAILURE() << "wait_all did not throw";
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("failing writer"), std::string::npos) << what;
      EXPECT_NE(what.find("1 dependent task not run"), std::string::npos) << what;
    }
    EXPECT_EQ(reads, 0) << "the late reader ran on the failed writer's data";
    // Reported: the mark is gone and the data is usable again.
    rt->submit(read, {{d, Access::Read}});
    EXPECT_NO_THROW(rt->wait_all());
    EXPECT_EQ(reads, 1);
    rt->unregister(d);
    EXPECT_EQ(v, std::vector<int>(4, 0));
  }
}

TEST(RuntimeFailures, DataUsedAfterUnregisterIsAUsageError) {
  Runtime rt(cpu_options(2));
  int x = 1;
  Data d = rt.register_vector(&x, 1, "x");
  Data copy = d;
  rt.unregister(d);
  EXPECT_FALSE(copy.registered());
  try {
    rt.submit(add_one(), {{copy, Access::Read}});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("used after unregister"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rt.acquire(copy, Access::Read), UsageError);
  EXPECT_THROW(rt.unregister(copy), UsageError);
  EXPECT_THROW(rt.submit(add_one(), {{Data(), Access::Read}}), UsageError);
}

TEST(RuntimeFailures, BadShapesAreUsageErrors) {
  Runtime rt(cpu_options(2));
  std::vector<double> m(6 * 6);
  EXPECT_THROW(rt.register_matrix(m.data(), 6, 6, 5), UsageError);  // ld < rows
  EXPECT_THROW(rt.register_vector(m.data(), 0), UsageError);
  Data a = rt.register_matrix(m.data(), 6, 6, 6, "a");
  EXPECT_THROW(rt.partition(a, 4, 3), UsageError);  // 4 does not divide 6
  EXPECT_THROW(rt.partition(a, 0, 3), UsageError);
  TileGrid grid = rt.partition(a, 3, 2);
  EXPECT_EQ(grid.grid_rows, 2u);
  EXPECT_EQ(grid.grid_cols, 3u);
  EXPECT_THROW(grid.at(2, 0), UsageError);
  EXPECT_THROW(rt.submit(add_one(), {{a, Access::Read}}), UsageError);  // partitioned
  EXPECT_THROW(rt.unregister(a), UsageError);
  EXPECT_THROW(
      rt.submit(add_one(), {{grid.at(0, 0), Access::Read}, {grid.at(0, 0), Access::Write}}),
      UsageError);  // same data twice
  std::array<std::byte, 100> big{};
  EXPECT_THROW(rt.submit(add_one(), {}, 0, "big", big), UsageError);
  rt.unpartition(grid);
}

TEST(RuntimeFailures, CodeletWithoutImplementationIsRejected) {
  Runtime rt(cpu_options(2));
  Codelet gpu_only("gpu_only");
  gpu_only.cuda([](const TaskContext&) {});
  EXPECT_THROW(rt.submit(gpu_only, {}), UsageError);
  RuntimeOptions o = cpu_options(2);
  o.scheduler = "offload";
  EXPECT_THROW(Runtime bad(o), UsageError);  // offload without a device or codelets
  o.scheduler = "fastest";
  EXPECT_THROW(Runtime bad(o), UsageError);
  o.scheduler = "eager";
  o.devices = {"cuda:99"};
  EXPECT_THROW(Runtime bad(o), UsageError);
  o.devices = {"cpu"};
  EXPECT_THROW(Runtime bad(o), UsageError);
}

// "locality" and the model schedulers keep the offloaded codelets on devices, as "offload" does: a
// task no device can take would wait for ever (found by the differential soak, bench/soak.sh:
// wait_all hung with locality and offload = op on a rank without devices). Refused at submission.
TEST(RuntimeFailures, OffloadedCodeletNoDeviceCanRunIsRefused) {
  // Accepted, the task would wait for ever and so would wait_all and the runtime's destructor: the
  // process ends instead, so that the test fails without hanging.
  auto refused = [](const auto& submit) {
    try {
      submit();
    } catch (const UsageError&) {
      return true;
    }
    std::fprintf(stderr, "submit accepted a task that no worker can take\n");
    std::_Exit(1);
  };
  for (const char* scheduler : {"locality", "model", "model-ready"}) {
    SCOPED_TRACE(scheduler);
    RuntimeOptions o = cpu_options(1);
    o.scheduler = scheduler;
    o.offload = {"add_one"};
    o.perf_models = "none";
    std::vector<int> x(8, 0);
    {
      Runtime rt(o);  // no device
      Data d = rt.register_vector(x.data(), x.size());
      EXPECT_TRUE(refused([&] { rt.submit(add_one(), {{d, Access::ReadWrite}}); }));
      rt.wait_all();
      rt.unregister(d);
    }
    Codelet cpu_only("add_one");  // a device, but no implementation for it
    cpu_only.cpu([](const TaskContext&) {});
    {
      std::unique_ptr<Runtime> rt = test::make_emulated_runtime(o, 1);
      Data d = rt->register_vector(x.data(), x.size());
      EXPECT_TRUE(refused([&] { rt->submit(cpu_only, {{d, Access::ReadWrite}}); }));
      rt->submit(add_one(), {{d, Access::ReadWrite}});  // one a device can run
      rt->wait_all();
      rt->unregister(d);
    }
    EXPECT_EQ(x, std::vector<int>(8, 1));
  }
  for (const char* scheduler : {"eager", "round-robin"}) {  // these ignore or fall back: CPUs
    SCOPED_TRACE(scheduler);
    RuntimeOptions o = cpu_options(1);
    o.scheduler = scheduler;
    o.offload = {"add_one"};
    std::vector<int> x(8, 0);
    Runtime rt(o);
    Data d = rt.register_vector(x.data(), x.size());
    rt.submit(add_one(), {{d, Access::ReadWrite}});
    rt.wait_all();
    rt.unregister(d);
    EXPECT_EQ(x, std::vector<int>(8, 1));
  }
}

TEST(RuntimeFailures, WaitAllWhileHoldingAnAcquireIsRefused) {
  Runtime rt(cpu_options(2));
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  HostAccess h = rt.acquire(d, Access::ReadWrite);
  EXPECT_THROW(rt.wait_all(), UsageError);
  h.release();
  EXPECT_NO_THROW(rt.wait_all());
}

}  // namespace
}  // namespace conveyor
