// The copy counts of seed 003 (table 3) on the task graph of a tiled Cholesky factorisation with
// 32x32 tiles, gemm offloaded to one device and potrf/trsm/syrk on CPUs. The kernels do nothing:
// the counts depend only on the graph, the placement and the coherence policy.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "conveyor/runtime.hpp"
#include "scratch_dir.hpp"
#include "unit/runtime/runtime_devices.hpp"

namespace conveyor {
namespace {

class RuntimeCopyCounts : public test::RuntimePerDevice {};

Codelet noop(const char* name, bool device) {
  Codelet c(name);
  auto nothing = [](const TaskContext&) {};
  c.cpu(nothing);
  if (device) {
    c.cuda(nothing);
    c.opencl({}, nothing);  // enqueues nothing: the runtime's copies and markers still run
  }
  return c;
}

// Submits the tiled Cholesky graph (lower, right-looking) on an nt x nt grid.
void submit_cholesky(Runtime& rt, const TileGrid& a, std::size_t nt) {
  Codelet potrf = noop("potrf", false), trsm = noop("trsm", false), syrk = noop("syrk", false),
          gemm = noop("gemm", true);
  for (std::size_t k = 0; k < nt; ++k) {
    rt.submit(potrf, {{a.at(k, k), Access::ReadWrite}});
    for (std::size_t i = k + 1; i < nt; ++i)
      rt.submit(trsm, {{a.at(k, k), Access::Read}, {a.at(i, k), Access::ReadWrite}});
    for (std::size_t j = k + 1; j < nt; ++j) {
      rt.submit(syrk, {{a.at(j, k), Access::Read}, {a.at(j, j), Access::ReadWrite}});
      for (std::size_t i = j + 1; i < nt; ++i)
        rt.submit(gemm, {{a.at(i, k), Access::Read},
                         {a.at(j, k), Access::Read},
                         {a.at(i, j), Access::ReadWrite}});
    }
  }
}

RuntimeStats run_cholesky(const test::RuntimePerDevice& fixture, Coherence policy,
                          const std::string& trace_path = {}, bool early_write_back = false) {
  RuntimeOptions o;
  o.cpus = 2;
  o.pin = false;
  o.scheduler = "offload";
  o.offload = {"gemm"};
  o.coherence = policy;
  o.trace = !trace_path.empty();
  o.early_write_back = early_write_back;
  constexpr std::size_t nt = 32, b = 2;
  std::vector<double> m(nt * b * nt * b, 1.0);
  std::unique_ptr<Runtime> rt;
  if (fixture.GetParam() == "emu") {
    rt = test::make_emulated_runtime(o);
  } else {
    o.devices = {fixture.GetParam()};
    rt = std::make_unique<Runtime>(o);
  }
  Data matrix = rt->register_matrix(m.data(), nt * b, nt * b, nt * b, "a");
  TileGrid tiles = rt->partition(matrix, b, b);
  submit_cholesky(*rt, tiles, nt);
  rt->wait_all();
  RuntimeStats s = rt->stats();
  if (!trace_path.empty()) rt->write_trace(trace_path);
  rt->unpartition(tiles);
  return s;
}

TEST_P(RuntimeCopyCounts, CoherentMatchesSeedTable3) {
  RuntimeStats s = run_cholesky(*this, Coherence::Coherent);
  EXPECT_EQ(s.tasks, 5984u);
  EXPECT_EQ(s.h2d_copies, 960u);
  EXPECT_EQ(s.d2h_copies, 465u);
  EXPECT_EQ(s.d2d_copies, 0u);
  EXPECT_EQ(s.total_copies(), 1425u);
  EXPECT_EQ(s.h2d_bytes, 960u * 4 * sizeof(double));
}

// Early write-back copies a tile home as soon as its last writer so far has finished: the copy
// that trsm would have needed, made earlier. When a gemm finishes before the next one on its tile
// is submitted (the submitting thread racing the workers), that copy was not needed: D2H can
// only grow, H2D not (the device replica stays valid).
TEST_P(RuntimeCopyCounts, EarlyWriteBackKeepsResultsAndAddsNoCopiesIn) {
  RuntimeStats s = run_cholesky(*this, Coherence::Coherent, {}, true);
  EXPECT_EQ(s.tasks, 5984u);
  EXPECT_EQ(s.h2d_copies, 960u);
  EXPECT_GE(s.d2h_copies, 465u);
}

TEST_P(RuntimeCopyCounts, NaiveMatchesSeedTable3) {
  RuntimeStats s = run_cholesky(*this, Coherence::Naive);
  EXPECT_EQ(s.h2d_copies, 14880u);
  EXPECT_EQ(s.d2h_copies, 4960u);
  EXPECT_EQ(s.total_copies(), 19840u);
}

TEST_P(RuntimeCopyCounts, TraceHasTracksPerWorkerDeviceAndLink) {
  test::ScratchDir scratch;
  std::string path = scratch.path("trace.json");
  run_cholesky(*this, Coherence::Coherent, path);
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  if (const char* keep = std::getenv("CONVEYOR_KEEP_TRACE"))  // to look at it: conveyor plot
    std::filesystem::copy_file(path, keep, std::filesystem::copy_options::overwrite_existing);
  std::set<std::string> processes, tracks, task_names, copy_names;
  for (const auto& e : doc.at("traceEvents")) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"]);
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"]);
    if (e["ph"] == "X" && e["cat"] == "task") task_names.insert(e["name"]);
    if (e["ph"] == "X" && e["cat"] == "transfer") copy_names.insert(e["name"]);
  }
  const std::string dev = GetParam() == "emu" ? "emu:0" : GetParam();
  EXPECT_TRUE(processes.count("host") && processes.count(dev));
  for (const std::string t : {"cpu worker 0", "cpu worker 1"}) EXPECT_TRUE(tracks.count(t)) << t;
  for (const std::string t : {" worker", " h2d", " d2h"}) EXPECT_TRUE(tracks.count(dev + t)) << t;
  EXPECT_TRUE(task_names.count("potrf") && task_names.count("trsm") && task_names.count("syrk"));
  // The emulated device keeps no timings of its lane: only the host-side copies show there.
  if (GetParam() != "emu") EXPECT_TRUE(task_names.count("gemm"));
  EXPECT_TRUE(copy_names.count("copy d2h"));
  if (GetParam() != "emu") EXPECT_TRUE(copy_names.count("copy h2d"));
}

CONVEYOR_INSTANTIATE_PER_RUNTIME_DEVICE(RuntimeCopyCounts);

// Seed 003 table 5: gemm dealt round-robin to two devices. Host-staged device-to-device movement
// counts as D2H + H2D; peer copies count as D2D.
RuntimeStats run_two_devices(DeviceCopy device_copy) {
  RuntimeOptions o;
  o.cpus = 2;
  o.pin = false;
  o.scheduler = "round-robin";
  o.offload = {"gemm"};
  o.device_copy = device_copy;
  constexpr std::size_t nt = 16, b = 2;
  std::vector<double> m(nt * b * nt * b, 1.0);
  auto rt = test::make_emulated_runtime(o, 2);
  Data matrix = rt->register_matrix(m.data(), nt * b, nt * b, nt * b, "a");
  TileGrid tiles = rt->partition(matrix, b, b);
  submit_cholesky(*rt, tiles, nt);
  rt->wait_all();
  RuntimeStats s = rt->stats();
  rt->unpartition(tiles);
  return s;
}

TEST(RuntimeCopyCountsTwoDevices, PeerCopiesReplaceHostStagedOnes) {
  RuntimeStats staged = run_two_devices(DeviceCopy::HostStaged);
  RuntimeStats peer = run_two_devices(DeviceCopy::PeerCopy);
  EXPECT_EQ(staged.d2d_copies, 0u);
  EXPECT_GT(peer.d2d_copies, 0u);
  // Which device gets which gemm depends on the order tasks become ready, so the counts vary from
  // run to run; the staged run always moves more through the host.
  EXPECT_GT(staged.d2h_copies, peer.d2h_copies);
  EXPECT_EQ(staged.spaces.size(), 2u);
}

}  // namespace
}  // namespace conveyor
