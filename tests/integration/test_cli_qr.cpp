// conveyor qr from the command line: a checked CPU run, JSON/CSV rows, the tile size chosen when
// --block is not given, a trace with the app's phases, and bad input as one line with exit 2
// (devices and simulated nodes: test_cli_qr_devices.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

// A build without LAPACKE refuses qr (exit 2, "needs LAPACKE"): the runs below are skipped there.
#define SKIP_WITHOUT_QR() \
  if (!qr_available()) GTEST_SKIP() << "built without LAPACKE"

TEST(CliQr, CheckedCpuRunPrintsGflopsAndPasses) {
  SKIP_WITHOUT_QR();
  CliResult r = run_cli("qr --n 300 --block 64 --ib 24 --cpus 2 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 tiles per side, 55 tasks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Tasks per worker"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu worker 1"), std::string::npos) << r.out;
}

TEST(CliQr, JsonRowsForBothPrecisionsWithARaggedTile) {
  SKIP_WITHOUT_QR();
  // 4 tiles, the last 2 wide (narrower than ib): 4 + 6 + 6 + 14 tasks.
  CliResult r = run_cli("qr --n 146 --block 48 --ib 20 --precision s,d --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "qr");
  ASSERT_EQ(doc["results"].size(), 2u);
  for (const auto& row : doc["results"]) {
    for (const char* key :
         {"n", "block", "ib", "tiles", "precision", "devices", "gflops", "time_s", "median_time_s",
          "residual", "residual_bound", "orthogonality", "orthogonality_bound", "workers"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row["n"], 146);
    EXPECT_EQ(row["tiles"], 4);
    EXPECT_EQ(row["tasks"], 30);
    EXPECT_EQ(row["devices"], "cpu");
    EXPECT_EQ(row["check"], "passed");
    EXPECT_GT(row["gflops"].get<double>(), 0.0);
    EXPECT_LE(row["residual"].get<double>(), row["residual_bound"].get<double>());
  }
  EXPECT_EQ(doc["results"][0]["precision"], "single");
  EXPECT_EQ(doc["results"][1]["precision"], "double");
}

TEST(CliQr, ATallMatrixIsFactorisedInItsOwnTiles) {
  SKIP_WITHOUT_QR();
  // 404 x 150 in tiles of 96: 5 x 2 tiles, the last row 20 high, the last column 54 wide.
  CliResult r = run_cli("qr --m 404 --n 150 --block 96 --ib 40 --cpus 2 --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["m"], 404);
  EXPECT_EQ(row["n"], 150);
  EXPECT_EQ(row["row_tiles"], 5);
  EXPECT_EQ(row["tiles"], 2);
  EXPECT_EQ(row["tasks"], 14);  // 2 geqrt, 1 gemqrt, 4 + 3 tpqrt, 4 tpmqrt
  EXPECT_EQ(row["check"], "passed");
  CliResult text = run_cli("qr --m 404 --n 150 --block 96 --cpus 2 --no-warmup");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("m x n = 404 x 150"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("5 x 2 tiles, 14 tasks"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("2 m n^2 - 2/3 n^3"), std::string::npos) << text.out;
}

TEST(CliQr, ATallThinMatrixGetsATreeOfOneDomainPerCpuWorker) {
  SKIP_WITHOUT_QR();
  // One tile column (tile 64: a square matrix of sqrt(2000 x 64) = 357 gets 64 on 2 workers): its
  // flat tree would be one chain of tpqrt.
  CliResult r = run_cli("qr --m 2000 --n 64 --cpus 2 --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["block"], 64);
  EXPECT_EQ(row["domains"], 2);
  EXPECT_EQ(row["ttqrt_tasks"], 1);     // one merge of the two domains' tops
  EXPECT_EQ(row["tasks"], 2 + 30 + 1);  // 2 geqrt, 32 - 2 tpqrt, 1 ttqrt
  EXPECT_EQ(row["check"], "passed");
  CliResult flat = run_cli("qr --m 2000 --n 64 --cpus 2 --domains 1 --no-warmup");
  ASSERT_EQ(flat.exit_code, 0) << flat.err;
  EXPECT_NE(flat.out.find("32 x 1 tiles, 32 tasks"), std::string::npos) << flat.out;
  CliResult tree = run_cli("qr --m 2000 --n 64 --cpus 2 --domains 4 --no-warmup");
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_NE(tree.out.find("in 4 domains of tile rows merged by a binary tree"), std::string::npos)
      << tree.out;
}

// Whether one of a JSON document's notes contains `text`.
bool noted(const nlohmann::json& doc, const std::string& text) {
  for (const auto& note : doc["notes"])
    if (note.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

TEST(CliQr, WithoutBlockTheTileSizeIsChosenAndSaid) {
  SKIP_WITHOUT_QR();
  // n = 512 on 4 workers: 8 tiles per side of 64 (the rule shared with cholesky), and ib the
  // whole tile (64 at most).
  CliResult r = run_cli("qr --n 512 --cpus 4 --no-warmup --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["options"]["block"], "auto");
  EXPECT_EQ(doc["options"]["ib"], "auto");
  EXPECT_EQ(doc["results"][0]["block"], 64);
  EXPECT_EQ(doc["results"][0]["ib"], 64);
  EXPECT_TRUE(noted(doc, "block 64 chosen")) << doc["notes"].dump();
  EXPECT_TRUE(noted(doc, "ib 64 chosen for tiles of 64")) << doc["notes"].dump();
}

TEST(CliQr, WithADeviceTheInnerBlockingStays32) {
  SKIP_WITHOUT_QR();
  if (!opencl_present()) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli("qr --n 256 --block 128 --devices cpu,opencl:0 --no-warmup --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["ib"], 32);
  EXPECT_TRUE(noted(doc, "ib 32 chosen for tiles of 128")) << doc["notes"].dump();
}

TEST(CliQr, AnIbGivenIsKeptOrTakenAsTheBlockAndSaid) {
  SKIP_WITHOUT_QR();
  CliResult r = run_cli("qr --n 96 --block 32 --ib 16 --no-warmup --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["options"]["ib"], 16);
  EXPECT_EQ(doc["results"][0]["ib"], 16);
  EXPECT_FALSE(noted(doc, "ib 16")) << doc["notes"].dump();
  r = run_cli("qr --n 96 --block 32 --ib 48 --no-warmup --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["results"][0]["ib"], 32);
  EXPECT_TRUE(noted(doc, "ib 48 taken as the block, 32")) << doc["notes"].dump();
}

TEST(CliQr, CsvHasOneLinePerPrecision) {
  SKIP_WITHOUT_QR();
  CliResult r = run_cli("qr --n 96 --block 32 --precision s,d --csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(line_count(r.out), 3) << r.out;
  std::string header = r.out.substr(0, r.out.find('\n'));
  for (const char* key : {"gflops", "time_s", "precision", "ib"})
    EXPECT_NE(header.find(key), std::string::npos) << key << " not in " << header;
}

TEST(CliQr, TraceCarriesTheTasksAndThePhases) {
  SKIP_WITHOUT_QR();
  ScratchDir scratch;
  std::string path = scratch.path("trace.json");
  CliResult r = run_cli("qr --n 96 --block 32 --cpus 2 --trace " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path);
  auto trace = nlohmann::json::parse(in);
  int tpmqrt = 0, phases = 0;
  for (const auto& e : trace["traceEvents"]) {
    tpmqrt += e.value("ph", "") == "X" && e.value("name", "") == "tpmqrt";
    phases += e.value("cat", "") == "phase";
  }
  EXPECT_GE(tpmqrt, 5 * 2);  // 5 per factorisation of 3 x 3 tiles, warm-up included
  EXPECT_EQ(phases, 3);      // warm-up, matrix generation, factorisation 1
}

TEST(CliQr, BadInputIsOneLineAndExitTwo) {
  for (const char* args :
       {"--n 0", "--n -4", "--block 0", "--block -3", "--ib 0", "--precision q", "--repeat 0",
        "--cpus 0", "--n 64 --sched fastest", "--n 64 --precision s,d --trace t.json",
        "--n 4000000", "--bogus", "--m 100 --n 200", "--m -5 --n 8", "--m 4000000 --n 4000",
        "--m 128 --n 64 --grid 1x1", "--n 64 --domains -1", "--n 64 --domains 2 --grid 1x1",
        "--n 64 --domains 2 --devices opencl:0",
        // Without mpirun, --grid needs one rank (with MPI) or is refused (without): bad usage.
        "--n 64 --grid 2x2", "--n 64 --grid 2y2", "--n 64 --grid 1x1 --precision s,d"}) {
    SCOPED_TRACE(args);
    CliResult r = run_cli(std::string("qr ") + args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

// The BLAS kernels of the CPU tile kernels, as a run reports them ("OpenBLAS 0.3.21 ... SkylakeX
// ..."), with `env` in front of the command.
std::string cpu_kernels(const std::string& env) {
  CliResult r = run_program(env + " " + CONVEYOR_CLI, "qr --n 16 --block 16 --no-warmup --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return "";
  return nlohmann::json::parse(r.out)["results"][0]["cpu_kernels"].get<std::string>();
}

bool cpu_has(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

// OpenBLAS falls back to its generic Prescott kernels on a CPU newer than itself (Debian 12's
// 0.3.21 on an Emerald Rapids Xeon, 3x slower); the CLI then starts again with the CPU's own.
TEST(CliQr, RunsTheBlasKernelsTheCpuHas) {
  SKIP_WITHOUT_QR();
  // The user's choice stands, the generic kernels too.
  EXPECT_NE(cpu_kernels("OPENBLAS_CORETYPE=Prescott").find(" Prescott"), std::string::npos);
  if (!cpu_has("avx2") || !cpu_has("fma")) GTEST_SKIP() << "a CPU without AVX2 and FMA";
  const std::string chosen = cpu_kernels("env -u OPENBLAS_CORETYPE");
  if (chosen.find("OpenBLAS") == std::string::npos) GTEST_SKIP() << "not OpenBLAS: " << chosen;
  EXPECT_EQ(chosen.find(" Prescott"), std::string::npos) << chosen;
}

// The TS update runs fused where the CPU has AVX2 + FMA and no AVX-512, LAPACK's when asked;
// either passes the check, and the run says which ran. Any other choice is one line and exit 2.
TEST(CliQr, TheTsUpdateIsFusedUnlessLapacksIsAskedFor) {
  SKIP_WITHOUT_QR();
  const std::string checked = "qr --n 300 --block 64 --ib 24 --check --no-warmup --json";
  for (const char* choice : {"lapack", "fused"}) {
    SCOPED_TRACE(choice);
    CliResult r =
        run_program(std::string("CONVEYOR_QR_TS_UPDATE=") + choice + " " + CONVEYOR_CLI, checked);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto result = nlohmann::json::parse(r.out)["results"][0];
    EXPECT_EQ(result["check"], "passed") << r.out;
    const bool fused =
        result["cpu_kernels"].get<std::string>().find("TS update fused") != std::string::npos;
    EXPECT_EQ(fused, std::string(choice) == "fused" && cpu_has("avx2") && cpu_has("fma") &&
                         !cpu_has("avx512f"))
        << r.out;
  }
  CliResult bad = run_program(std::string("CONVEYOR_QR_TS_UPDATE=fast ") + CONVEYOR_CLI, checked);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_EQ(line_count(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("CONVEYOR_QR_TS_UPDATE"), std::string::npos) << bad.err;
}

TEST(CliQr, HelpTeachesWithExamples) {
  CliResult r = run_cli("qr --help");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("--ib"), std::string::npos);
  EXPECT_NE(r.out.find("--check"), std::string::npos);
  EXPECT_NE(r.out.find("CONVEYOR_QR_TS_UPDATE=lapack"), std::string::npos);
}

}  // namespace
}  // namespace conveyor::test
