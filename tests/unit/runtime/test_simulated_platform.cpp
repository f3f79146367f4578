// Simulated platforms (docs/simulation.md): platform files are checked strictly; the real runtime
// on simulated devices makes the copies it makes on emulated ones (seed tables 3 and 5); modelled
// copies and kernels take exactly their modelled virtual time, and transfers sharing a link
// serialize; runs are deterministic, and the model scheduler predicts from the platform.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "device/simulated/platform.hpp"
#include "scratch_dir.hpp"
#include "unit/runtime/simulated_platform.hpp"

namespace conveyor {
namespace {

using device::simulated::parse_platform;

const char* kGood = R"({"name": "g", "host": {"cores": 2, "gbs": 1},
  "devices": [{"id": "gpu", "count": 2, "memory_gb": 1, "gflops": {"gemm": 10}}],
  "links": [{"between": ["host", "gpu:0"], "gbs": 1}, {"between": ["host", "gpu:1"], "gbs": [1, 2]}]})";

TEST(PlatformFile, AGoodFileParses) {
  auto p = parse_platform(kGood, "p.json");
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[1].id, "gpu:1");
  EXPECT_EQ(p.devices[0].memory_bytes, 1000000000u);
  EXPECT_DOUBLE_EQ(p.links[1].gbs_ba, 2);
  EXPECT_EQ(p.host_cores, 2);
}

TEST(PlatformFile, ErrorsAreOneLineNamingTheFileAndTheKey) {
  std::string unknown = test::platform_error(
      R"({"name": "g", "colour": 1, "host": {"cores": 1}, "devices": [], "links": []})");
  EXPECT_NE(unknown.find("platform file p.json: 'colour' is an unknown key"), std::string::npos)
      << unknown;
  std::string nested = test::platform_error(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1, "gflop": {}}], "links": []})");
  EXPECT_NE(nested.find("'devices[0].gflop' is an unknown key"), std::string::npos) << nested;
  std::string negative = test::platform_error(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1}], "links": [{"between": ["host", "gpu:0"], "gbs": -4}]})");
  EXPECT_NE(negative.find("'links[0].gbs' must not be negative (got -4)"), std::string::npos)
      << negative;
  std::string missing = test::platform_error(
      R"({"name": "g", "host": {"cores": 1}, "devices": [{"id": "gpu"}], "links": []})");
  EXPECT_NE(missing.find("'devices[0].memory_gb' is missing"), std::string::npos) << missing;
  std::string endpoint = test::platform_error(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1}], "links": [{"between": ["host", "gpu:1"], "gbs": 1}]})");
  EXPECT_NE(endpoint.find("names 'gpu:1', which is neither host, a device"), std::string::npos)
      << endpoint;
  EXPECT_NE(test::platform_error("{nope").find("platform file p.json: not JSON"),
            std::string::npos);
  for (const auto& e : {unknown, nested, negative, missing, endpoint})
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(PlatformFile, ADeviceWithoutARouteToTheHostIsRefused) {
  auto spec = parse_platform(R"({"name": "g", "host": {"cores": 1},
    "devices": [{"id": "gpu", "count": 2, "memory_gb": 1}],
    "links": [{"between": ["host", "gpu:0"], "gbs": 1}]})",
                             "p.json");
  try {
    device::simulated::Platform platform(spec, 0, false);
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "platform file p.json: 'links' give no route between host and gpu:1");
  }
  EXPECT_NO_THROW(device::simulated::Platform(spec, 1, false));  // only gpu:0 used
}

TEST(PlatformFile, AMissingFileIsAUsageError) {
  EXPECT_THROW(device::simulated::read_platform("/nonexistent/platform.json"), UsageError);
}

// Regressions found with fuzz/platform.cpp (fuzz/corpus/platform/crash_*): numbers beyond int's or
// uint64_t's range were cast to them (undefined: "1e+10 is outside the range of representable
// values of type 'int'"), and a huge count made that many devices (a timeout, then out of memory).
TEST(PlatformFile, CountsAndSizesBeyondTheirTypesAreRefused) {
  auto platform = [](const std::string& cores, const std::string& count, const std::string& gb) {
    return R"({"name": "g", "host": {"cores": )" + cores +
           R"(}, "devices": [{"id": "gpu", "count": )" + count + R"(, "memory_gb": )" + gb +
           R"(}], "links": [{"between": ["host", "gpu:0"], "gbs": 1}]})";
  };
  EXPECT_EQ(test::platform_error(platform("4096", "256", "1e9")), "(accepted)");
  EXPECT_NE(
      test::platform_error(platform("1e10", "1", "1")).find("'host.cores' must be at most 4096"),
      std::string::npos);
  EXPECT_NE(test::platform_error(platform("1", "1e10", "1"))
                .find("'devices[0].count' must be at most 256"),
            std::string::npos);
  EXPECT_NE(test::platform_error(platform("1", "100000000", "1")).find("must be at most 256"),
            std::string::npos);
  EXPECT_NE(test::platform_error(platform("1", "1", "1e300"))
                .find("'devices[0].memory_gb' must be at most"),
            std::string::npos);
  EXPECT_NE(
      test::platform_error(platform("2.5", "1", "1")).find("'host.cores' must be a whole number"),
      std::string::npos);
  // A number too large for a double is JSON that nlohmann refuses with out_of_range, not
  // parse_error: it escaped the reader (crash_number_overflow, found by the fuzzer itself).
  EXPECT_NE(
      test::platform_error(platform("1e999", "1", "1")).find("platform file p.json: not JSON"),
      std::string::npos);
}

RuntimeOptions simulated_options(const std::string& platform, const std::string& scheduler,
                                 std::vector<std::string> offload, int devices = 0) {
  RuntimeOptions o;
  o.cpus = 2;
  o.platform = platform;
  o.platform_devices = devices;
  o.scheduler = scheduler;
  o.offload = std::move(offload);
  return o;
}

RuntimeStats run_cholesky(const RuntimeOptions& o, std::size_t nt) {
  constexpr std::size_t b = 2;
  std::vector<double> m(nt * b * nt * b, 1.0);
  Runtime rt(o);
  Data matrix = rt.register_matrix(m.data(), nt * b, nt * b, nt * b, "a");
  TileGrid tiles = rt.partition(matrix, b, b);
  test::submit_noop_cholesky(rt, tiles, nt);
  rt.wait_all();
  RuntimeStats s = rt.stats();
  rt.unpartition(tiles);
  return s;
}

TEST(SimulatedPlatform, CopyCountsMatchSeedTable3) {
  std::string path = test::write_platform_file(test::switch_platform(1));
  RuntimeOptions o = simulated_options(path, "offload", {"gemm"});
  RuntimeStats s = run_cholesky(o, 32);
  EXPECT_EQ(s.tasks, 5984u);
  EXPECT_EQ(s.h2d_copies, 960u);
  EXPECT_EQ(s.d2h_copies, 465u);
  EXPECT_EQ(s.d2d_copies, 0u);
  o.coherence = Coherence::Naive;
  s = run_cholesky(o, 32);
  EXPECT_EQ(s.h2d_copies, 14880u);
  EXPECT_EQ(s.d2h_copies, 4960u);
  std::remove(path.c_str());
}

TEST(SimulatedPlatform, PeerCopiesReplaceHostStagedOnesAsInSeedTable5) {
  std::string path = test::write_platform_file(test::switch_platform(4));
  RuntimeOptions o = simulated_options(path, "round-robin", {"gemm"}, 2);
  RuntimeStats staged = run_cholesky(o, 16);
  o.device_copy = DeviceCopy::PeerCopy;
  RuntimeStats peer = run_cholesky(o, 16);
  o.device_copy = DeviceCopy::PeerDirect;
  RuntimeStats direct = run_cholesky(o, 16);
  EXPECT_EQ(staged.d2d_copies, 0u);
  EXPECT_GT(peer.d2d_copies, 0u);
  EXPECT_GT(staged.d2h_copies, peer.d2h_copies);
  o.platform_devices = 1;
  RuntimeStats one = run_cholesky(o, 16);
  // Each tile gemm writes comes back to the host once, whatever the number of GPUs (seed: 465 for
  // 32 tiles; 105 for 16).
  EXPECT_EQ(peer.d2h_copies, 105u);
  EXPECT_EQ(one.d2h_copies, 105u);
  // peer-direct uses a peer's replica in place where peer-copy would copy it: no D2D copies; tiles
  // the host holds still go host to device. (The other counts depend on which device gets which
  // gemm: the same every run here, but a property of the placement, not of the seed's table.)
  EXPECT_EQ(direct.d2d_copies, 0u);
  EXPECT_GE(direct.h2d_copies, one.h2d_copies);
  EXPECT_EQ(direct.d2h_copies, 105u);
  EXPECT_EQ(staged.spaces.size(), 2u);
  std::remove(path.c_str());
}

TEST(SimulatedPlatform, CopiesAndKernelsTakeTheirModelledTime) {
  // 1 GB/s everywhere: 1e6 bytes take 1 ms on a link and 1 ms in a kernel that touches them.
  std::string path = test::write_platform_file(test::switch_platform(1));
  Runtime rt(simulated_options(path, "offload", {"touch"}));
  std::vector<char> v(1000000, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet touch = test::noop_codelet("touch", true);
  rt.submit(touch, {{d, Access::ReadWrite}});
  rt.wait_all();
  EXPECT_NEAR(rt.seconds(), 3e-3, 1e-12);  // h2d, kernel, d2h at wait_all
  rt.unregister(d);
  std::remove(path.c_str());
}

TEST(SimulatedPlatform, TransfersOnASharedLinkSerialize) {
  // Two devices behind one switch: their copies in share the host -> switch channel, and the
  // copies back at wait_all are made one after the other by the user's thread.
  std::string path = test::write_platform_file(test::switch_platform(2));
  Runtime rt(simulated_options(path, "round-robin", {"touch"}));
  std::vector<char> a(1000000, 1), b(1000000, 1);
  Data da = rt.register_vector(a.data(), a.size(), "a");
  Data db = rt.register_vector(b.data(), b.size(), "b");
  Codelet touch = test::noop_codelet("touch", true);
  rt.submit(touch, {{da, Access::ReadWrite}});
  rt.submit(touch, {{db, Access::ReadWrite}});
  rt.wait_all();
  // h2d 0-1 and 1-2 ms (shared), kernels end at 2 and 3 ms, then d2h 3-4 and 4-5 ms.
  EXPECT_NEAR(rt.seconds(), 5e-3, 1e-12);
  EXPECT_EQ(rt.stats().h2d_copies, 2u);
  rt.unregister(da);
  rt.unregister(db);
  std::remove(path.c_str());
}

TEST(SimulatedPlatform, RunsKernelsForRealWhenAsked) {
  std::string path = test::write_platform_file(test::switch_platform(4));
  RuntimeOptions o = simulated_options(path, "round-robin", {"inc"});
  o.platform_run_kernels = true;
  o.device_copy = DeviceCopy::PeerDirect;
  Runtime rt(o);
  std::vector<int> v(64, 1), w(64, 0);
  Data dv = rt.register_vector(v.data(), v.size(), "v");
  Data dw = rt.register_vector(w.data(), w.size(), "w");
  Codelet inc("inc");  // w += v
  auto fn = [](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<int>(1)[i] += t.data<int>(0)[i];
  };
  inc.cpu(fn).cuda(fn);
  for (int k = 0; k < 10; ++k) rt.submit(inc, {{dv, Access::Read}, {dw, Access::ReadWrite}});
  rt.wait_all();
  EXPECT_EQ(w, std::vector<int>(64, 10));
  rt.unregister(dv);
  rt.unregister(dw);
  std::remove(path.c_str());
}

// Room for one vector: when a's task ends, b's task evicts a (its write-back goes on a slow link)
// before the host, woken by the same completion, takes its turn and reads a. The host thread waits
// for the copy in virtual time and then runs on its turn: the value arrives, and the run ends at
// the same virtual time every time.
TEST(SimulatedPlatform, TheHostWaitsForAWriteBackInVirtualTime) {
  test::ScratchDir dir;
  std::string path = dir.path("one.json");
  std::ofstream(path) << test::switch_platform(1, /*gbs=*/0.001);  // copies outlast kernels
  RuntimeOptions o = simulated_options(path, "offload", {"set"}, 1);
  o.platform_run_kernels = true;
  o.device_memory_limit = 64 * sizeof(int);
  Codelet set("set");  // x = value
  auto fn = [](const TaskContext& t) {
    std::fill(t.data<int>(0), t.data<int>(0) + t.buffer(0).rows, t.args<int>());
  };
  set.cpu(fn).cuda(fn);
  double first = 0;
  for (int run = 0; run < 3; ++run) {
    Runtime rt(o);
    std::vector<int> a(64, 0), b(64, 0);
    Data da = rt.register_vector(a.data(), a.size(), "a");
    Data db = rt.register_vector(b.data(), b.size(), "b");
    int five = 5, seven = 7;
    rt.submit(set, {{da, Access::Write}}, 0, {}, std::as_bytes(std::span(&five, 1)));
    rt.submit(set, {{db, Access::Write}}, 0, {}, std::as_bytes(std::span(&seven, 1)));
    {
      HostAccess h = rt.acquire(da, Access::Read);
      EXPECT_EQ(a, std::vector<int>(64, 5));
    }
    rt.wait_all();
    EXPECT_EQ(b, std::vector<int>(64, 7));
    RuntimeStats s = rt.stats();
    EXPECT_EQ(s.write_backs, 1u);  // a, to make room for b
    if (run == 0) first = rt.seconds();
    EXPECT_EQ(rt.seconds(), first);
    rt.unregister(da);
    rt.unregister(db);
  }
}

TEST(SimulatedPlatform, AMissingModelFailsTheTaskWithItsName) {
  std::string path = test::write_platform_file(R"({"name": "nomodel", "host": {"cores": 1},
    "devices": [{"id": "gpu", "memory_gb": 1}], "links": [{"between": ["host", "gpu:0"], "gbs": 1}]})");
  RuntimeOptions o = simulated_options(path, "offload", {"touch"});
  o.cpus = 1;
  Runtime rt(o);
  std::vector<char> v(16, 1);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  rt.submit(test::noop_codelet("touch", true), {{d, Access::ReadWrite}});
  try {
    rt.wait_all();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no model for codelet 'touch'"), std::string::npos)
        << e.what();
  }
  rt.unregister(d);
  std::remove(path.c_str());
}

// Under the model schedulers the platform's models are known before any task runs: a codelet
// that some worker able to run it has no model for is refused at its first submit, naming those
// workers, instead of failing a task in the middle of the run.
TEST(SimulatedPlatform, ACodeletWithoutAModelIsRefusedAtSubmit) {
  for (const char* host : {R"({"cores": 1})", R"({"cores": 1, "gbs": 1})"}) {
    std::string path = test::write_platform_file(
        std::string(R"({"name": "nomodel", "host": )") + host +
        R"(, "devices": [{"id": "gpu", "memory_gb": 1}], "links": [{"between": ["host", "gpu:0"], "gbs": 1}]})");
    RuntimeOptions o = simulated_options(path, "model", {});
    o.cpus = 1;
    Runtime rt(o);
    std::vector<char> v(16, 1);
    Data d = rt.register_vector(v.data(), v.size(), "v");
    try {
      rt.submit(test::noop_codelet("touch", true), {{d, Access::ReadWrite}});
      FAIL() << "no error with host " << host;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("codelet 'touch'"), std::string::npos) << what;
      EXPECT_NE(what.find("gpu:0"), std::string::npos) << what;
      EXPECT_EQ(what.find("host") != std::string::npos,
                std::string(host).find("gbs") == std::string::npos)
          << what;
    }
    rt.wait_all();
    EXPECT_EQ(rt.stats().tasks, 0u);
    rt.unregister(d);
    std::remove(path.c_str());
  }
}

// Four devices behind two switches under one root (the seed's V100 node in small), where the
// kernels outweigh the copies as in seed 003: tiles of 64 x 64 doubles (32 KiB) take ~9 us on a
// link, a device gemm ~100 us, a host core's ~1 ms.
std::string two_switch_platform(const test::ScratchDir& dir) {
  std::string path = dir.path("two_switches.json");
  std::ofstream(path) << R"({"name": "two-switches", "host": {"cores": 2, "gbs": 0.1},
    "devices": [{"id": "sim", "count": 4, "memory_gb": 1, "gbs": 1, "launch_us": 2}],
    "switches": ["root", "sw0", "sw1"],
    "links": [{"between": ["host", "root"], "gbs": 16},
              {"between": ["root", "sw0"], "gbs": 4, "latency_us": 1},
              {"between": ["root", "sw1"], "gbs": 4, "latency_us": 1},
              {"between": ["sw0", "sim:0"], "gbs": 4}, {"between": ["sw0", "sim:1"], "gbs": 4},
              {"between": ["sw1", "sim:2"], "gbs": 4}, {"between": ["sw1", "sim:3"], "gbs": 4}]})";
  return path;
}

struct SimulatedRun {
  double seconds = 0;
  RuntimeStats stats;
};

// The tiled Cholesky with every codelet on the devices too (what `conveyor cholesky --platform`
// runs), kernels doing nothing.
SimulatedRun run_device_cholesky(const RuntimeOptions& o, std::size_t nt,
                                 bool all_on_device = true) {
  constexpr std::size_t b = 64;
  std::vector<double> m(nt * b * nt * b, 1.0);
  Runtime rt(o);
  Data matrix = rt.register_matrix(m.data(), nt * b, nt * b, nt * b, "a");
  TileGrid a = rt.partition(matrix, b, b);
  test::submit_noop_cholesky(rt, a, nt, all_on_device);
  rt.wait_all();
  SimulatedRun run{rt.seconds(), rt.stats()};
  rt.unpartition(a);
  return run;
}

// Two runs of the same input: the same virtual time and the same copies, to the last bit.
void expect_same_run(const SimulatedRun& run, const SimulatedRun& first, const char* scheduler) {
  EXPECT_EQ(run.seconds, first.seconds) << scheduler;
  EXPECT_EQ(run.stats.h2d_copies, first.stats.h2d_copies) << scheduler;
  EXPECT_EQ(run.stats.d2h_copies, first.stats.d2h_copies) << scheduler;
  EXPECT_EQ(run.stats.d2d_copies, first.stats.d2d_copies) << scheduler;
}

TEST(SimulatedPlatform, MultiDeviceRunsAreDeterministic) {
  // Threads woken at one virtual time take turns in the order they were woken, so the same input
  // gives the same virtual time and the same copies, to the last bit, under any scheduler.
  test::ScratchDir dir;
  std::string path = two_switch_platform(dir);
  for (const char* scheduler : {"round-robin", "eager", "model", "model-ready"}) {
    RuntimeOptions o = simulated_options(path, scheduler, {}, 4);
    o.device_copy = DeviceCopy::PeerCopy;
    SimulatedRun first = run_device_cholesky(o, 10);
    EXPECT_GT(first.stats.d2d_copies, 0u) << scheduler;
    for (int again = 0; again < 3; ++again) {
      SimulatedRun run = run_device_cholesky(o, 10);
      expect_same_run(run, first, scheduler);
      ASSERT_EQ(run.stats.workers.size(), first.stats.workers.size());
      for (std::size_t w = 0; w < run.stats.workers.size(); ++w)
        EXPECT_EQ(run.stats.workers[w].tasks, first.stats.workers[w].tasks) << scheduler;
    }
  }
}

// The same with room for 6 tiles per device, gemm alone on the devices: evictions write tiles
// home beside the host's tasks, and the runs stay identical. (The host waiting for a landing is
// TheHostWaitsForAWriteBackInVirtualTime: this graph does not happen to meet it.)
TEST(SimulatedPlatform, RunsWithWriteBacksAreDeterministic) {
  test::ScratchDir dir;
  std::string path = two_switch_platform(dir);
  for (const char* scheduler : {"round-robin", "model"}) {
    RuntimeOptions o = simulated_options(path, scheduler, {"gemm"}, 4);
    o.device_copy = DeviceCopy::PeerCopy;
    o.device_memory_limit = 6 * 64 * 64 * sizeof(double);
    o.early_write_back = true;
    SimulatedRun first = run_device_cholesky(o, 10, false);
    EXPECT_GT(first.stats.write_backs, 0u) << scheduler;
    for (int again = 0; again < 3; ++again) {
      SimulatedRun run = run_device_cholesky(o, 10, false);
      expect_same_run(run, first, scheduler);
      EXPECT_EQ(run.stats.write_backs, first.stats.write_backs) << scheduler;
    }
  }
}

TEST(SimulatedPlatform, ModelSchedulerPredictsFromThePlatformAndUsesEveryDevice) {
  test::ScratchDir dir;
  std::string path = two_switch_platform(dir);
  RuntimeOptions o = simulated_options(path, "model", {}, 1);
  o.device_copy = DeviceCopy::PeerCopy;
  SimulatedRun one = run_device_cholesky(o, 12);
  o.platform_devices = 4;
  SimulatedRun four = run_device_cholesky(o, 12);
  // The platform's models answer at once: nothing is placed only to be measured, and the
  // predictions of the device tasks are their virtual times exactly (no peer-direct reads).
  EXPECT_EQ(one.stats.calibration_tasks, 0u);
  EXPECT_EQ(four.stats.calibration_tasks, 0u);
  for (const auto& w : four.stats.workers) {
    if (w.name.rfind("sim:", 0) != 0) continue;
    EXPECT_GT(w.tasks, 0u) << w.name;
    EXPECT_GT(w.predicted_seconds, 0) << w.name;  // its kernels, within its busy time
    EXPECT_LE(w.predicted_seconds, w.busy_seconds * (1 + 1e-9)) << w.name;
  }
  // More devices help (2.06x here with run-ahead off, the default with several devices; 1.98x at
  // depth 8, 1.92x at 16, 1.84x at 32: a task that runs ahead stays on the device of its
  // predecessors rather than the least loaded one), and the tiles come from the host
  // about once each: the rest moves between devices. The tiles that the host's cores write are
  // read from the host by every device that needs them, so the count may grow: bounded at +40 %
  // (101 -> 82 here; docs/simulation.md has the 4xV100 figures; the seed's round-robin: +152 %).
  EXPECT_LT(four.seconds, one.seconds / 1.8);
  EXPECT_GT(four.stats.d2d_copies, 0u);
  EXPECT_LE(four.stats.h2d_copies * 10, one.stats.h2d_copies * 14);
}

}  // namespace
}  // namespace conveyor
