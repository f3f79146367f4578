// conveyor cholesky on simulated platforms (docs/simulation.md): the seed's table 5 for 1, 2 and 4
// simulated V100s in seconds, a checked run that executes the kernels, the trace's link tracks,
// and bad platform input as one line with exit 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

const std::string kV100 = std::string(CONVEYOR_SOURCE_DIR) + "/platforms/4xV100-pcie3.json";

TEST(CliSimulation, SeedTable5For1To4SimulatedV100s) {
  CliResult r = run_cli("cholesky --n 32768 --block 1024 --platform " + kV100 +
                        " --offload gemm --sched round-robin --device-copy peer-copy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"seed 003 table 5 layout", "1 GPU", "2 GPU", "4 GPU", "Host to Device",
                        "Device to Device", "960 [960]", "465 [465]", "simulated time s"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(CliSimulation, JsonRowsPerGpuCountAndDeviceCopy) {
  CliResult r = run_cli("cholesky --n 8192 --block 512 --platform " + kV100 +
                        " --sched round-robin --device-copy peer-copy,peer-direct --gpus 1,2 "
                        "--json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 4u);
  for (const auto& row : doc["results"]) {
    EXPECT_TRUE(row["simulated"].get<bool>());
    EXPECT_GT(row["time_s"].get<double>(), 0.0);
    EXPECT_EQ(row["tasks"], 816);       // 16 tiles
    EXPECT_EQ(row["d2h_copies"], 105);  // 15 * 14 / 2 tiles gemm writes, back once each
  }
  EXPECT_EQ(doc["results"][3]["device_copy"], "peer-direct");
  EXPECT_EQ(doc["results"][3]["d2d_copies"], 0);  // in place, not copied
}

TEST(CliSimulation, RunsTheKernelsAndChecksWhenAsked) {
  CliResult r = run_cli("cholesky --n 256 --block 64 --platform " + kV100 +
                        " --gpus 2 --sched round-robin --device-copy peer-direct "
                        "--sim-run-kernels --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
}

TEST(CliSimulation, TraceHasATrackPerLinkDirectionWithEveryCopyOnIt) {
  ScratchDir scratch;
  std::string trace = scratch.path("sim.json");
  CliResult r = run_cli("cholesky --n 4096 --block 1024 --platform " + kV100 +
                        " --gpus 4 --sched model --device-copy peer-copy --json --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  const auto& row = result["results"][0];
  std::ifstream in(trace);
  auto doc = nlohmann::json::parse(in);
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> tracks;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") processes[e["pid"].get<int>()] = e["args"]["name"];
    if (e["name"] == "thread_name")
      tracks[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  }
  ASSERT_EQ(processes[6], "links");  // host 1, the 4 GPUs 2-5, then the links
  EXPECT_EQ(tracks[std::make_pair(2, 1)], "v100:0 worker");
  // A copy crosses exactly one link into its destination and one out of its source; links are
  // named "from -> to", so the direction of each box is its track's.
  auto is_device = [](const std::string& end) { return end.rfind("v100:", 0) == 0; };
  std::map<std::string, int> into_device, out_of_device, link_tracks;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] != 6) continue;
    const std::string& name = tracks[{e["pid"].get<int>(), e["tid"].get<int>()}];
    auto arrow = name.find(" -> ");
    ASSERT_NE(arrow, std::string::npos) << name;
    ++link_tracks[name];
    std::string from = name.substr(0, arrow), to = name.substr(arrow + 4);
    const std::string kind = e["name"];
    EXPECT_EQ(e["cat"], "transfer");
    if (is_device(to)) ++into_device[kind];
    if (is_device(from)) ++out_of_device[kind];
    if (is_device(to)) EXPECT_NE(kind, "copy d2h") << name;
    if (is_device(from)) EXPECT_NE(kind, "copy h2d") << name;
    if (to == "host") EXPECT_EQ(kind, "copy d2h") << name;
    if (from == "host") EXPECT_EQ(kind, "copy h2d") << name;
  }
  EXPECT_EQ(into_device["copy h2d"], row["h2d_copies"].get<int>());
  EXPECT_EQ(out_of_device["copy d2h"], row["d2h_copies"].get<int>());
  EXPECT_EQ(into_device["copy d2d"], row["d2d_copies"].get<int>());
  EXPECT_EQ(out_of_device["copy d2d"], row["d2d_copies"].get<int>());
  EXPECT_GT(row["d2d_copies"].get<int>(), 0);
  EXPECT_GE(link_tracks.size(), 8u);  // at least each GPU's link, both ways
}

TEST(CliSimulation, BadPlatformInputIsOneLineAndExit2) {
  ScratchDir scratch;  // a fixed name in the shared temp directory would be overwritten by others
  auto path = scratch.dir() / "bad_platform.json";
  std::ofstream(path) << R"({"name": "bad", "host": {"cores": 2}, "devices": [{"id": "g",
      "memory_gb": 1}], "links": [{"between": ["host", "g:0"], "gbs": -1}]})";
  CliResult r = run_cli("cholesky --n 1024 --block 256 --platform " + path.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'links[0].gbs' must not be negative"), std::string::npos) << r.err;
  for (const char* args :
       {"cholesky --n 1024 --gpus 2", "cholesky --n 1024 --platform /nonexistent.json",
        "cholesky --n 1024 --device-copy sideways"}) {
    CliResult bad = run_cli(args);
    EXPECT_EQ(bad.exit_code, 2) << args;
    EXPECT_EQ(line_count(bad.err), 1) << args << ": " << bad.err;
  }
}

}  // namespace
}  // namespace conveyor::test
