// What a simulated device charges beyond its kernels and copies (docs/simulation.md, "What is
// modelled"): a codelet's rate by task size, the host's wake-up on a completion (complete_us),
// which a task waiting for its predecessor pays and a queued one does not, and copies in on a
// stream of their own (copy_in_stream), which overlap the kernel before them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "device/simulated/platform.hpp"
#include "unit/runtime/simulated_platform.hpp"

namespace conveyor {
namespace {

using device::simulated::parse_platform;

std::string with_gemm_rate(const std::string& rate) {
  return R"({"name": "g", "host": {"cores": 1}, "devices": [{"id": "gpu", "memory_gb": 1,
    "gflops": {"gemm": )" +
         rate + R"(}}], "links": [{"between": ["host", "gpu:0"], "gbs": 1}]})";
}

TEST(PlatformRates, PointsInterpolateInLogFlopsAndAreFlatBeyond) {
  auto p = parse_platform(with_gemm_rate("[[1e6, 10], [1e8, 30]]"), "p.json");
  const auto& m = p.devices[0].compute;
  EXPECT_DOUBLE_EQ(m.seconds("gemm", 1e5, 0), 1e5 / 10e9);  // below the first point: its rate
  EXPECT_DOUBLE_EQ(m.seconds("gemm", 1e6, 0), 1e6 / 10e9);
  EXPECT_NEAR(m.seconds("gemm", 1e7, 0), 1e7 / 20e9, 1e-15);  // halfway in log(flops)
  EXPECT_DOUBLE_EQ(m.seconds("gemm", 1e9, 0), 1e9 / 30e9);
  auto one = parse_platform(with_gemm_rate("25"), "p.json");
  EXPECT_DOUBLE_EQ(one.devices[0].compute.seconds("gemm", 5e9, 0), 0.2);
}

TEST(PlatformRates, BadPointsAndFlagsAreOneLineNamingTheKey) {
  for (const char* rate : {"[]", "[[1e8, 30], [1e6, 10]]", "[[1e6, 0]]", "[[1e6]]", "\"x\"",
                           "[[1e6, 10], [1e6, 20]]"}) {
    std::string e = test::platform_error(with_gemm_rate(rate));
    EXPECT_NE(e.find("'devices[0].gflops.gemm'"), std::string::npos) << rate << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  std::string flag = test::platform_error(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1, "copy_in_stream": 1}], "links": []})");
  EXPECT_NE(flag.find("'devices[0].copy_in_stream' must be true or false"), std::string::npos)
      << flag;
  std::string negative = test::platform_error(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1, "complete_us": -1}], "links": []})");
  EXPECT_NE(negative.find("'devices[0].complete_us' must not be negative"), std::string::npos)
      << negative;
}

// One device, a 1 GB/s link, kernels at 1 GB/s of their buffers: 1e6 bytes take 1 ms to copy and
// 1 ms in a kernel. `extra` adds device keys.
std::string one_device(const std::string& extra) {
  return test::write_platform_file(
      R"({"name": "costs", "host": {"cores": 2, "gbs": 1}, "devices": [{"id": "sim",
      "memory_gb": 1, "gbs": 1)" +
      extra + R"(}], "links": [{"between": ["host", "sim:0"], "gbs": 1}]})");
}

RuntimeOptions on_device(const std::string& path, int run_ahead = 0) {
  RuntimeOptions o;
  o.cpus = 2;
  o.run_ahead = run_ahead;
  o.platform = path;
  o.scheduler = "offload";
  o.offload = {"touch"};
  return o;
}

// Three tasks in a chain on one vector, or one task on each of three vectors; virtual seconds.
// Run-ahead off unless given.
double run(const std::string& path, bool chain, int run_ahead = 0) {
  Runtime rt(on_device(path, run_ahead));
  std::vector<std::vector<char>> v(3, std::vector<char>(1000000, 1));
  std::vector<Data> d;
  for (auto& x : v) d.push_back(rt.register_vector(x.data(), x.size(), "v"));
  Codelet touch = test::noop_codelet("touch", true);
  for (int k = 0; k < 3; ++k) rt.submit(touch, {{d[chain ? 0 : k], Access::ReadWrite}});
  rt.wait_all();
  double s = rt.seconds();
  for (auto& x : d) rt.unregister(x);
  return s;
}

TEST(SimulatedCosts, ATaskWaitingForItsPredecessorPaysTheWakeUpAQueuedOneDoesNot) {
  const std::string plain = one_device(""), woken = one_device(R"(, "complete_us": 500)");
  // Chain: h2d 0-1 ms, kernels 1-2, 2-3, 3-4, d2h at wait_all 4-5.
  EXPECT_NEAR(run(plain, true), 5e-3, 1e-9);
  // Each kernel waits for the host to learn that the one before ended: +0.5 ms three times.
  EXPECT_NEAR(run(woken, true), 6.5e-3, 1e-9);
  // Independent tasks are all queued at once: only the last completion's wake-up shows.
  EXPECT_NEAR(run(woken, false) - run(plain, false), 0.5e-3, 1e-9);
}

// Run-ahead: the chain's kernels are enqueued behind each other at once, ordered by the lane, so
// only the last completion's wake-up shows (before the copy home of wait_all), as for independent
// tasks.
TEST(SimulatedCosts, WithRunAheadAChainPaysOneWakeUpNotOnePerTask) {
  const std::string plain = one_device(""), woken = one_device(R"(, "complete_us": 500)");
  EXPECT_NEAR(run(plain, true, 4), 5e-3, 1e-9);
  EXPECT_NEAR(run(woken, true, 4), 5.5e-3, 1e-9);
  // A depth of 1: the second task runs ahead behind the first; the third, with the depth taken,
  // waits for the second's completion: one wake-up more.
  EXPECT_NEAR(run(woken, true, 1), 6e-3, 1e-9);
}

TEST(SimulatedCosts, CopiesInOnTheirOwnStreamOverlapTheKernelBefore) {
  const std::string lane = one_device(""), stream = one_device(R"(, "copy_in_stream": true)");
  // One lane: h2d, kernel, h2d, kernel, h2d, kernel (6 ms), then three copies back (3 ms).
  EXPECT_NEAR(run(lane, false), 9e-3, 1e-9);
  // Copies in back to back (0-3 ms), each kernel right after its copy (ends 2, 3, 4 ms).
  EXPECT_NEAR(run(stream, false), 7e-3, 1e-9);
}

// Tasks in flight by default (RuntimeOptions::kInFlightAuto): short tasks fill the lane beyond the
// count, up to kInFlightMost, while it holds less predicted work than the device's round trip. 64
// independent tasks of a few nanoseconds each on a device whose completions reach the host 100 us
// late: 8 at a time wait a round trip every 8 tasks; filled, every 32.
double short_tasks(int in_flight) {
  const std::string path = one_device(R"(, "complete_us": 100)");
  RuntimeOptions o;
  o.cpus = 1;
  o.platform = path;
  o.scheduler = "model";
  o.device_tasks_in_flight = in_flight;
  Runtime rt(o);
  std::vector<std::vector<char>> v(64, std::vector<char>(8, 1));
  std::vector<Data> d;
  for (auto& x : v) d.push_back(rt.register_vector(x.data(), x.size(), "v"));
  Codelet touch("touch");
  touch.cuda([](const TaskContext&) {});
  for (Data& x : d) rt.submit(touch, {{x, Access::ReadWrite}});
  rt.wait_all();
  EXPECT_EQ(rt.options().device_tasks_in_flight, RuntimeOptions::kInFlightOneDevice);
  double s = rt.seconds();
  for (auto& x : d) rt.unregister(x);
  return s;
}

TEST(SimulatedCosts, ShortTasksFillTheLaneToCoverTheRoundTrip) {
  const double counted = short_tasks(RuntimeOptions::kInFlightOneDevice);
  const double filled = short_tasks(RuntimeOptions::kInFlightAuto);
  EXPECT_GT(counted, 64 / 8 * 100e-6);
  EXPECT_LT(filled, 0.5 * counted) << counted;
}

}  // namespace
}  // namespace conveyor
