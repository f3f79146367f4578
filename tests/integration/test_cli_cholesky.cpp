// conveyor cholesky from the command line: a checked CPU run, JSON/CSV rows with the keys
// `conveyor plot` draws, the seed's copy counts with gemm on the OpenCL device (when there is one),
// a trace, and bad input as one line with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

TEST(CliCholesky, CheckedCpuRunPrintsGflopsAndCopies) {
  CliResult r = run_cli("cholesky --n 300 --block 64 --cpus 2 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("H2D"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 tiles per side"), std::string::npos) << r.out;
}

TEST(CliCholesky, JsonRowsCarryThePlotKeys) {
  CliResult r = run_cli("cholesky --n 256 --block 64 --precision s,d --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "cholesky");
  ASSERT_EQ(doc["results"].size(), 2u);
  for (const auto& row : doc["results"]) {
    for (const char* key : {"n", "block", "precision", "devices", "coherence", "gflops", "time_s",
                            "h2d_copies", "d2h_copies", "d2d_copies"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row["n"], 256);
    EXPECT_EQ(row["devices"], "cpu");
    EXPECT_GT(row["gflops"].get<double>(), 0.0);
    EXPECT_EQ(row["check"], "passed");
    EXPECT_EQ(row["tasks"], 20);  // 4 tiles: 4 potrf, 6 trsm, 6 syrk, 4 gemm
    EXPECT_EQ(row["total_copies"], 0);
  }
  EXPECT_EQ(doc["results"][0]["precision"], "single");
  EXPECT_EQ(doc["results"][1]["precision"], "double");
}

TEST(CliCholesky, WithoutBlockTheTileSizeIsChosenAndSaid) {
  // n = 1536 on 4 workers: 4 sqrt(4) = 8 tiles per side of 192 (docs/cholesky.md, "Tile size").
  CliResult r = run_cli("cholesky --n 1536 --cpus 4 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["options"]["block"], "auto");
  EXPECT_EQ(doc["results"][0]["block"], 192);
  EXPECT_EQ(doc["results"][0]["tiles"], 8);
  bool said = false;
  for (const auto& note : doc["notes"])
    said = said || note.get<std::string>().find("block 192 chosen") != std::string::npos;
  EXPECT_TRUE(said) << doc["notes"].dump();
}

TEST(CliCholesky, CsvHasOneLinePerConfiguration) {
  CliResult r = run_cli("cholesky --n 128 --block 32 --precision s,d --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_count(r.out), 3) << r.out;
  std::string header = r.out.substr(0, r.out.find('\n'));
  for (const char* key : {"gflops", "time_s", "h2d_copies", "precision"})
    EXPECT_NE(header.find(key), std::string::npos) << key << " not in " << header;
}

TEST(CliCholesky, GemmOnTheOpenclDeviceMakesTheSeedsCopies) {
  if (!opencl_present()) GTEST_SKIP() << "no OpenCL device";
  // 8 x 8 tiles: 56 gemm. Coherent: 21 updated tiles in and out once, 27 panel tiles in once.
  CliResult r = run_cli(
      "cholesky --n 128 --block 16 --precision s --devices cpu,opencl:0 --offload gemm "
      "--coherence naive,coherent --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = nlohmann::json::parse(r.out)["results"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["coherence"], "naive");
  EXPECT_EQ(rows[0]["h2d_copies"], 168);
  EXPECT_EQ(rows[0]["d2h_copies"], 56);
  EXPECT_EQ(rows[1]["coherence"], "coherent");
  EXPECT_EQ(rows[1]["h2d_copies"], 48);
  EXPECT_EQ(rows[1]["d2h_copies"], 21);
  for (const auto& row : rows) {
    EXPECT_EQ(row["devices"], "cpu+opencl:0");
    EXPECT_EQ(row["check"], "passed");
  }
}

// Out of core: 8 x 8 tiles of 8 KiB (a 512 KiB matrix) through room for 8 tiles on the device.
TEST(CliCholesky, MatrixLargerThanTheDeviceMemoryFactorisesOutOfCore) {
  if (!opencl_present()) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli(
      "cholesky --n 256 --block 32 --devices cpu,opencl:0 --offload gemm --device-memory 64KiB "
      "--check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"].at(0);
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["device_memory_limit_bytes"], 65536);
  EXPECT_GT(row["evictions"].get<std::uint64_t>(), 0u);
  EXPECT_LE(row["peak_device_bytes"].get<std::uint64_t>(), 65536u);
  EXPECT_GT(row["h2d_copies"].get<std::uint64_t>(), 56u);  // more than in core: (t-1)(t-2)/2 + 27
  CliResult table = run_cli(
      "cholesky --n 256 --block 32 --devices cpu,opencl:0 --offload gemm --device-memory 64KiB");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("evictions"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("write-backs"), std::string::npos) << table.out;
}

// --prefetch on,off: the same factorisation twice, side by side, with the same copies (device
// memory is not short), and the prefetches counted in the table.
TEST(CliCholesky, PrefetchOnAndOffRunSideBySide) {
  if (!opencl_present()) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli(
      "cholesky --n 256 --block 32 --devices cpu,opencl:0 --offload gemm --prefetch on,off "
      "--check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = nlohmann::json::parse(r.out)["results"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["prefetch"], true);
  EXPECT_EQ(rows[1]["prefetch"], false);
  EXPECT_EQ(rows[1]["prefetches"], 0);
  EXPECT_EQ(rows[0]["h2d_copies"], rows[1]["h2d_copies"]);
  EXPECT_EQ(rows[0]["prefetches_used"], rows[0]["prefetches"]);
  for (const auto& row : rows) EXPECT_EQ(row["check"], "passed");
}

TEST(CliCholesky, AllDevicesMeansTheCpusAndEveryDevice) {
  CliResult r = run_cli("cholesky --n 96 --block 32 --devices all --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  std::string devices = row["devices"];
  EXPECT_EQ(devices.rfind("cpu", 0), 0u) << devices;
  EXPECT_EQ(devices.find("opencl:0") != std::string::npos, opencl_present()) << devices;
  EXPECT_EQ(row["check"], "passed");
}

TEST(CliCholesky, TraceIsAChromeTrace) {
  ScratchDir scratch;
  std::string path = scratch.path("trace.json");
  CliResult r = run_cli("cholesky --n 128 --block 32 --cpus 2 --trace " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  auto trace = nlohmann::json::parse(in);
  auto events = trace.is_array() ? trace : trace["traceEvents"];
  int tasks = 0;
  for (const auto& e : events)
    if (e.value("ph", "") == "X" &&
        (e.value("name", "") == "gemm" || e.value("name", "") == "potrf"))
      ++tasks;
  EXPECT_GE(tasks, 4 + 4);  // 4 potrf and 4 gemm (plus the warm-up's)

  // The application's phases explain the timeline: every task lies in one of them, and only the
  // factorisation is marked as timed.
  std::vector<std::pair<double, double>> phases;
  std::vector<std::string> names;
  for (const auto& e : events)
    if (e.value("cat", "") == "phase") {
      phases.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      names.push_back(e["name"]);
      EXPECT_EQ(e["args"]["timed"].get<bool>(), names.back().starts_with("factorisation"))
          << names.back();
    }
  ASSERT_EQ(names.size(), 3u);
  EXPECT_TRUE(names[0].starts_with("warm-up")) << names[0];
  EXPECT_TRUE(names[1].starts_with("matrix generation")) << names[1];
  EXPECT_EQ(names[2], "factorisation 1 (timed)");
  for (std::size_t i = 1; i < phases.size(); ++i) EXPECT_LE(phases[i - 1].second, phases[i].first);
  // Phases and tasks are on one clock (Runtime::seconds), so containment is exact.
  for (const auto& e : events) {
    if (e.value("cat", "") != "task") continue;
    double start = e["ts"].get<double>(), end = start + e["dur"].get<double>();
    bool inside = false;
    for (const auto& [lo, hi] : phases) inside = inside || (lo <= start && end <= hi);
    EXPECT_TRUE(inside) << e.dump();
  }
}

TEST(CliCholesky, BadInputIsOneLineAndExitTwo) {
  for (const char* args :
       {"--n 0", "--n -4", "--block 0", "--block -1", "--precision q", "--devices cpu,nosuch:3",
        "--offload gemm2 --devices cpu,opencl:0", "--coherence sometimes", "--repeat 0",
        "--n 64 --devices none", "--n 64 --sched fastest", "--n 128 --precision s,d --trace t.json",
        "--n 4000000", "--n 64 --device-memory 1MiB", "--n 64 --device-memory lots",
        "--n 64 --devices cpu,opencl:0 --device-memory 0", "--n 64 --prefetch sometimes"}) {
    SCOPED_TRACE(args);
    CliResult r = run_cli(std::string("cholesky ") + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

// Without mpirun a --grid needs one rank (with MPI) or is refused (without): bad usage either way.
TEST(CliCholesky, GridsTheJobCannotRunAreBadUsage) {
  for (const char* args : {"--n 64 --grid 2x2", "--n 64 --grid 2y2", "--n 64 --grid 0x1",
                           "--n 64 --grid 1x1 --precision s,d"}) {
    SCOPED_TRACE(args);
    CliResult r = run_cli(std::string("cholesky ") + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

TEST(CliCholesky, HelpTeachesWithExamples) {
  CliResult r = run_cli("cholesky --help");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("--coherence"), std::string::npos);
}

}  // namespace
}  // namespace conveyor::test
