// The built RISC-V programs (skipped when the cross compiler was not found): DMA semantics hold
// under every store-buffer configuration, results are deterministic, and misbehaving programs
// stop with one line naming node, pc and cause.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "conveyor/sim.hpp"
#include "unit/manycore/mesh_config.hpp"

namespace conveyor::sim {
namespace {

using test::mesh;

std::string program(const std::string& name) {
  std::string path = programs_dir("") + "/" + name + ".elf";
  if (!std::filesystem::exists(path)) return "";
  return path;
}

#define REQUIRE_PROGRAM(var, name) \
  std::string var = program(name); \
  if (var.empty()) GTEST_SKIP() << "RISC-V programs not built (no cross compiler)"

TEST(SimPrograms, DmaSemanticsHoldInEveryConfiguration) {
  REQUIRE_PROGRAM(path, "dmatest");
  struct Variant {
    int entries;
    bool watch, split;
  };
  for (Variant v : {Variant{0, false, false}, Variant{1, false, false}, Variant{8, false, false},
                    Variant{32, false, false}, Variant{8, true, false}, Variant{8, false, true},
                    Variant{2, true, true}, Variant{32, true, true}}) {
    SimConfig c = mesh(4, 2, v.entries);
    c.watch_get = v.watch;
    c.split_requests = v.split;
    std::ostringstream console;
    SimResult r = run_elf(c, path, &console);
    EXPECT_TRUE(r.passed) << "entries " << v.entries << " watch " << v.watch << " split " << v.split
                          << "\n"
                          << console.str();
    EXPECT_NE(console.str().find("dmatest: PASS"), std::string::npos) << console.str();
  }
}

TEST(SimPrograms, SmallFlitsAndPacketsStillDeliver) {
  REQUIRE_PROGRAM(path, "dmatest");
  SimConfig c = mesh(3, 3, 16);
  c.flit_bytes = 2;
  c.packet_payload_bytes = 6;
  c.router_buffer_flits = 1;
  c.split_requests = true;
  EXPECT_TRUE(run_elf(c, path, nullptr).passed);
}

TEST(SimPrograms, SameConfigurationSameStatistics) {
  REQUIRE_PROGRAM(path, "alltoall");
  SimConfig c = mesh(4, 4, 16);
  SimResult a = run_elf(c, path, nullptr), b = run_elf(c, path, nullptr);
  nlohmann::json ja = to_json(a, true), jb = to_json(b, true);
  for (auto* key : {"sim_seconds", "sim_cpu_seconds", "instructions_per_second",
                    "instructions_per_cpu_second", "cycles_per_second"}) {
    ja.erase(key);
    jb.erase(key);
  }
  EXPECT_EQ(ja, jb);
  EXPECT_TRUE(a.passed);
}

TEST(SimPrograms, StoreBufferHidesPutStallsInAllToAll) {
  REQUIRE_PROGRAM(path, "alltoall");
  SimResult base = run_elf(mesh(4, 4, 0), path, nullptr);
  SimResult sb = run_elf(mesh(4, 4, 8), path, nullptr);
  ASSERT_TRUE(base.passed && sb.passed);
  EXPECT_LT(sb.cycles, base.cycles);
  EXPECT_LT(sb.stall_cycles * 4, base.stall_cycles);
  EXPECT_GT(base.stalls[static_cast<int>(StallCause::kDmaWait)], 0u);
  // Instructions in the region of interest do not depend on the buffer (no polling there).
  uint64_t ib = 0, is = 0;
  for (size_t i = 0; i < base.nodes.size(); ++i)
    ib += base.nodes[i].instructions, is += sb.nodes[i].instructions;
  EXPECT_EQ(ib, is);
}

TEST(SimPrograms, DetectorHoldsStoresIntoTheUnsentRange) {
  REQUIRE_PROGRAM(path, "alltoall");
  // With 2-byte flits the DMA reads the send buffer slower than the core regenerates it, so the
  // violation detector must hold those stores; the received data stays correct (self-check).
  SimConfig c = mesh(4, 4, 8);
  c.flit_bytes = 2;
  SimResult r = run_elf(c, path, nullptr);
  ASSERT_TRUE(r.passed);
  uint64_t held_data = 0, held_req = 0;
  for (const NodeStats& n : r.nodes)
    held_data += n.sb_held_data_cycles, held_req += n.sb_held_request_cycles;
  EXPECT_GT(held_data, 0u);
  EXPECT_GT(held_req, 0u);
  EXPECT_GT(r.stalls[static_cast<int>(StallCause::kSbFull)], 0u);
}

TEST(SimPrograms, DmaSetupCyclesKeepSemanticsAndWatchTheWholeSource) {
  REQUIRE_PROGRAM(dmatest, "dmatest");
  REQUIRE_PROGRAM(alltoall, "alltoall");
  for (int entries : {0, 8, 32}) {
    for (bool split : {false, true}) {
      if (split && entries == 0) continue;
      SimConfig c = mesh(4, 2, entries);
      c.dma_setup_cycles = 40;
      c.split_requests = split;
      std::ostringstream console;
      SimResult r = run_elf(c, dmatest, &console);
      EXPECT_TRUE(r.passed) << "entries " << entries << " split " << split << "\n" << console.str();
    }
  }
  // While a blocking PUT waits for its controller, the stores regenerating its source are held
  // from its first byte on, and the data still arrives intact (All-to-All checks it).
  SimConfig c = mesh(4, 4, 8);
  c.dma_setup_cycles = 40;
  SimResult r = run_elf(c, alltoall, nullptr);
  ASSERT_TRUE(r.passed);
  uint64_t held_data = 0;
  for (const NodeStats& n : r.nodes) held_data += n.sb_held_data_cycles;
  EXPECT_GT(held_data, 0u);
  SimResult fast = run_elf(mesh(4, 4, 8), alltoall, nullptr);
  EXPECT_GT(r.cycles, fast.cycles);
}

TEST(SimPrograms, PipelineRunsPastItsPutsWithRequestsBuffered) {
  REQUIRE_PROGRAM(path, "pipeline");
  SimResult base = run_elf(mesh(4, 2, 0), path, nullptr);
  SimResult sb = run_elf(mesh(4, 2, 8), path, nullptr);
  ASSERT_TRUE(base.passed && sb.passed);
  EXPECT_LT(sb.cycles, base.cycles);
  EXPECT_LT(sb.stall_cycles * 10, base.stall_cycles);
  // The data PUT is requested right behind the acknowledgement PUT: its request stores wait in
  // the buffer while that transfer is in flight (seed figure 8); the baseline has no buffer.
  uint64_t req = 0, held = 0, base_req = 0, base_held = 0;
  for (size_t i = 0; i < sb.nodes.size(); ++i) {
    req += sb.nodes[i].sb_put_req_cycles, base_req += base.nodes[i].sb_put_req_cycles;
    held += sb.nodes[i].sb_held_request_cycles;
    base_held += base.nodes[i].sb_held_request_cycles + base.nodes[i].sb_held_data_cycles;
  }
  EXPECT_GT(req, 0u);
  EXPECT_GT(held, 0u);  // ... and it is a request that holds the head
  EXPECT_EQ(base_req, 0u);
  EXPECT_EQ(base_held, 0u);
}

struct FaultCase {
  const char* program;
  const char* needle;
};

TEST(SimPrograms, MisbehavingProgramsStopWithOneClearLine) {
  const FaultCase cases[] = {
      {"fault_illegal", "node 1 pc 0x"},
      {"fault_illegal", "illegal instruction 0xffffffff"},
      {"fault_misaligned", "node 2 pc 0x"},
      {"fault_misaligned", "misaligned 4-byte load"},
      {"fault_outside", "node 0 pc 0x"},
      {"fault_outside", "outside local memory"},
      {"fault_badnode", "node 3 pc 0x"},
      {"fault_badnode", "DMA to node 9 which does not exist"},
      {"fault_deadlock", "deadlocked barrier"},
      {"fault_hang", "cycle limit 100000"},
  };
  for (const FaultCase& f : cases) {
    std::string path = program(f.program);
    if (path.empty()) GTEST_SKIP() << "RISC-V programs not built";
    SimConfig c = mesh(2, 2, 0);
    c.max_cycles = 100000;
    try {
      run_elf(c, path, nullptr);
      ADD_FAILURE() << f.program << ": no fault";
    } catch (const SimFault& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(f.needle), std::string::npos) << f.program << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
}

TEST(SimPrograms, ConfigJsonRoundTripsAndRejectsUnknownKeys) {
  SimConfig c = mesh(8, 2, 16);
  c.watch_get = true;
  SimConfig back = config_from_json(to_json(c), SimConfig{});
  EXPECT_EQ(to_json(back), to_json(c));
  EXPECT_THROW(config_from_json({{"mesh_widht", 4}}, SimConfig{}), UsageError);
  EXPECT_THROW(config_from_json({{"mesh_width", "4"}}, SimConfig{}), UsageError);
  SimConfig bad = mesh(4, 4, 0);
  bad.watch_get = true;
  EXPECT_THROW(validate(bad), UsageError);
}

}  // namespace
}  // namespace conveyor::sim
