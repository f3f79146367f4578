// The simulator's run-ahead (cores with an idle DMA run a few cycles ahead of the others) is a
// speed-up only: every statistic, per node, and the console must be exactly what plain lockstep
// gives, for every program and every store-buffer / network variant.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "conveyor/sim.hpp"
#include "unit/manycore/mesh_config.hpp"

namespace conveyor::sim {
namespace {

using test::mesh;

struct Outcome {
  nlohmann::json stats;
  std::string console;
  std::string error;
};

Outcome simulate(SimConfig config, const std::string& path, bool run_ahead) {
  config.run_ahead = run_ahead;
  std::ostringstream console;
  Outcome out;
  try {
    out.stats = to_json(run_elf(config, path, &console), true);
    for (auto* key : {"sim_seconds", "sim_cpu_seconds", "instructions_per_second",
                      "instructions_per_cpu_second", "cycles_per_second"})
      out.stats.erase(key);
  } catch (const SimFault& e) {
    out.error = e.what();
  }
  out.console = console.str();
  return out;
}

void expect_same(const std::string& name, const SimConfig& config) {
  const std::string path = programs_dir("") + "/" + name + ".elf";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "RISC-V programs not built";
  Outcome lockstep = simulate(config, path, false), ahead = simulate(config, path, true);
  EXPECT_EQ(lockstep.error, ahead.error) << name;
  EXPECT_EQ(lockstep.console, ahead.console) << name;
  EXPECT_EQ(lockstep.stats, ahead.stats) << name;
  EXPECT_TRUE(!lockstep.error.empty() || lockstep.stats.contains("instructions")) << name;
}

TEST(SimRunAhead, BenchmarksGiveIdenticalStatistics) {
  for (const char* name : {"pipeline", "stencil", "alltoall", "bitonic"})
    for (int entries : {0, 8}) expect_same(name, mesh(4, 4, entries));
}

TEST(SimRunAhead, ExtensionsAndNarrowNetworksGiveIdenticalStatistics) {
  SimConfig c = mesh(4, 2, 4);
  c.watch_get = true;
  c.split_requests = true;
  expect_same("bitonic_get", c);
  expect_same("dmatest", c);
  c = mesh(3, 3, 2);
  c.flit_bytes = 2;
  c.packet_payload_bytes = 6;
  c.router_buffer_flits = 1;
  c.barrier_latency_cycles = -1;
  c.main_memory_latency_cycles = 0;
  expect_same("dmatest", c);
  expect_same("pipeline", c);
  expect_same("alltoall", mesh(8, 8, 16));
}

// A DMA start-up delay only makes transfers later than the window assumes; the detector then
// watches a blocking PUT from its command on.
TEST(SimRunAhead, DmaStartUpDelayGivesIdenticalStatistics) {
  for (int setup : {1, 3, 40}) {
    SimConfig c = mesh(4, 4, 8);
    c.dma_setup_cycles = setup;
    for (const char* name : {"dmatest", "timing", "alltoall", "pipeline"}) expect_same(name, c);
  }
}

// `timing` measures, to the cycle, when a polling core sees a PUT's first data and what a GET
// reads from memory its owner is rewriting: the two paths that bound the run-ahead window.
TEST(SimRunAhead, TimingProbeSeesTheSameCycles) {
  expect_same("timing", mesh(2, 1, 0));
  expect_same("timing", mesh(4, 4, 0));
  expect_same("timing", mesh(2, 2, 8));
  SimConfig c = mesh(3, 2, 4);
  c.watch_get = true;
  c.split_requests = true;
  expect_same("timing", c);
}

TEST(SimRunAhead, ConsoleAndFaultsAreTheSame) {
  expect_same("hello", mesh(4, 4, 0));
  expect_same("selftest", mesh(1, 1, 0));
  for (const char* fault :
       {"fault_illegal", "fault_misaligned", "fault_outside", "fault_badnode", "fault_deadlock"})
    expect_same(fault, mesh(4, 4, 0));
  SimConfig c = mesh(4, 4, 0);
  c.max_cycles = 5'001;  // the cycle limit falls inside a run-ahead window
  expect_same("fault_hang", c);
  expect_same("pipeline", c);
}

}  // namespace
}  // namespace conveyor::sim
