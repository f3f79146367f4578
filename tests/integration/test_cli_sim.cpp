// conveyor sim as a user runs it: benchmarks by name, the user's own ELF built with the command
// docs/sim.md gives, output formats, the differential test against the host, and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

/// The folder of built programs as the CLI resolves it, or "" when they were not built.
std::string programs_dir() {
  CliResult r = run_cli("sim run hello --mesh 1x1 --json");
  if (r.exit_code != 0) return "";
  std::string path = nlohmann::json::parse(r.out)["options"]["program"];
  return path.substr(0, path.find_last_of('/'));
}

#define REQUIRE_PROGRAMS(dir)             \
  const std::string dir = programs_dir(); \
  if (dir.empty()) GTEST_SKIP() << "RISC-V programs not built (no cross compiler)"

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliSim, HelloRunsOnEveryNode) {
  REQUIRE_PROGRAMS(dir);
  CliResult r = run_cli("sim run hello --mesh 2x2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 4; ++i)
    EXPECT_NE(r.out.find("[" + std::to_string(i) + "] hello from node " + std::to_string(i) +
                         " of 4 (2x2)"),
              std::string::npos)
        << r.out;
  EXPECT_NE(r.out.find("cycles (region of interest)"), std::string::npos);
}

TEST(CliSim, SelftestPrintsWhatTheHostPrints) {
  REQUIRE_PROGRAMS(dir);
  std::string host = dir + "/conveyor_manycore_selftest_host";
  if (access(host.c_str(), X_OK) != 0) GTEST_SKIP() << "host selftest not built";
  ScratchDir scratch;
  std::string out = scratch.path("selftest_host.txt");
  ASSERT_EQ(std::system((host + " > " + out).c_str()), 0);
  std::ifstream in(out);
  std::stringstream native;
  native << in.rdbuf();
  CliResult r = run_cli("sim run selftest --mesh 1x1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> simulated;
  for (const auto& line : doc["console"]) {
    std::string text = line;
    ASSERT_EQ(text.rfind("[0] ", 0), 0u) << text;
    simulated.push_back(text.substr(4));
  }
  EXPECT_EQ(simulated, lines_of(native.str()));
  EXPECT_GT(simulated.size(), 10u);
}

TEST(CliSim, JsonRowCarriesTheSeedsFigures) {
  REQUIRE_PROGRAMS(dir);
  CliResult r = run_cli("sim run alltoall --nodes 16 --entries 8 --json --per-node");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "sim");
  EXPECT_EQ(doc["options"]["store_buffer_entries"], 8);
  EXPECT_EQ(doc["options"]["router_buffer_flits"], 4);
  const auto& row = doc["results"][0];
  for (const char* key : {"benchmark", "nodes", "entries", "cycles", "stall_cycles", "stalls",
                          "sb_put_fraction", "sb_put_data_fraction", "sb_put_request_fraction",
                          "sb_mean_occupancy", "router_flits", "instructions_per_second"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row["benchmark"], "alltoall");
  EXPECT_EQ(row["nodes"], 16);
  EXPECT_EQ(row["router_flits"].size(), 16u);
  EXPECT_EQ(doc["console"][0], "[0] alltoall: PASS (16 nodes x 128 B x 4 rounds, 0 errors)");
}

TEST(CliSim, SweepRowsAreRelativeToZeroEntries) {
  REQUIRE_PROGRAMS(dir);
  ScratchDir scratch;
  std::string file = scratch.path("sim_sweep.json");
  CliResult r = run_cli(
      "sim sweep --benchmarks alltoall,stencil --nodes 16 --entries 8 --threads 2 "
      "--json-out " +
      file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rel. cycles %"), std::string::npos);
  std::ifstream in(file);
  auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["command"], "sim_sweep");
  ASSERT_EQ(doc["results"].size(), 4u);  // the 0-entry baseline is added
  for (const auto& row : doc["results"]) {
    for (const char* key : {"benchmark", "nodes", "entries", "cycles", "relative_cycles",
                            "stall_cycles", "relative_stalls"})
      EXPECT_TRUE(row.contains(key)) << key;
    if (row["entries"] == 0) EXPECT_DOUBLE_EQ(row["relative_cycles"].get<double>(), 1.0);
  }
}

TEST(CliSim, UsersOwnProgramBuiltWithTheDocumentedCommand) {
  REQUIRE_PROGRAMS(dir);
  if (std::system("riscv64-unknown-elf-gcc --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "no cross compiler";
  ScratchDir scratch;
  const std::string src = scratch.path("ring.c"), elf = scratch.path("ring.elf");
  {
    std::ofstream out(src);
    out << "#include <stdio.h>\n#include \"mcore.h\"\n"
           "static int inbox, token;\n"
           "int main(void) {\n"
           "  int id = MC_node_id(), p = MC_nodes();\n"
           "  token = id * 10;\n"
           "  MC_dma_put((id + 1) % p, &inbox, &token, sizeof(token));\n"
           "  MC_barrier();\n"
           "  printf(\"node %d got %d\\n\", id, inbox);\n"
           "  return inbox != ((id + p - 1) % p) * 10;\n"
           "}\n";
  }
  const std::string mcore = std::string(CONVEYOR_SOURCE_DIR) + "/manycore/programs/mcore";
  // The command of docs/sim.md, section "Your own program".
  std::string build =
      "riscv64-unknown-elf-gcc -march=rv32im -mabi=ilp32 -O2 --specs=picolibc.specs "
      "-nostartfiles -T " +
      mcore + "/mcore.ld -I " + mcore + " " + mcore + "/crt0.S " + mcore + "/mcore.c " + src +
      " -o " + elf;
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  CliResult r = run_cli("sim run " + elf + " --mesh 3x1 --entries 8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[1] node 1 got 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[0] node 0 got 20"), std::string::npos) << r.out;
}

TEST(CliSim, ConfigFileIsReadAndEchoed) {
  REQUIRE_PROGRAMS(dir);
  ScratchDir scratch;
  std::string file = scratch.path("machine.json");
  {
    std::ofstream out(file);
    out << R"({"mesh_width": 2, "mesh_height": 1, "flit_bytes": 4, "main_memory_latency_cycles": 7})";
  }
  CliResult r = run_cli("sim run hello --config " + file + " --entries 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["options"]["mesh_width"], 2);
  EXPECT_EQ(doc["options"]["flit_bytes"], 4);
  EXPECT_EQ(doc["options"]["main_memory_latency_cycles"], 7);
  EXPECT_EQ(doc["options"]["store_buffer_entries"], 4);
  {
    std::ofstream out(file);
    out << R"({"mesh_wdth": 2})";
  }
  r = run_cli("sim run hello --config " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown key 'mesh_wdth'"), std::string::npos) << r.err;
}

TEST(CliSim, MisbehavingProgramIsOneLineAndExitOne) {
  REQUIRE_PROGRAMS(dir);
  CliResult r = run_cli("sim run " + dir + "/fault_illegal.elf --mesh 2x2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("node 1 pc 0x"), std::string::npos) << r.err;
  r = run_cli("sim run " + dir + "/fault_hang.elf --mesh 2x2 --max-cycles 5000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cycle limit 5000"), std::string::npos) << r.err;
}

TEST(CliSim, BadUsageIsOneLineAndExitTwo) {
  for (const char* args :
       {"sim run hello --mesh 3y3", "sim run nosuchprogram", "sim run hello --watch-get",
        "sim run hello --nodes 12", "sim run hello --flit-bytes 3", "sim run /nonexistent/x.elf",
        "sim run hello --programs /nonexistent", "sim sweep --entries 8,x", "sim",
        "sim run hello --dma-setup -1"}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << args << ": " << r.err;
  }
  CliResult r = run_cli("sim run hello --programs /nonexistent");
  EXPECT_NE(r.err.find("riscv64-unknown-elf-gcc"), std::string::npos) << r.err;
}

TEST(CliSim, HelpTeachesWithExamples) {
  for (const char* args :
       {"sim --help", "sim run --help", "sim sweep --help", "sim extensions --help"}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << args;
  }
}

}  // namespace
}  // namespace conveyor::test
