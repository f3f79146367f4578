// conveyor cholesky on simulated clusters (docs/simulated-clusters.md): every rank's runtime in one
// process on one virtual clock, the MPI layer's real code over a modelled network. A checked run
// factorises correctly and sends exactly the closed form's messages; runs repeat exactly; nodes of
// CPUs only work; QR and the stencil run there too; bad requests are one line and exit 2.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_runner.hpp"
#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

const std::string kPlatforms = std::string(CONVEYOR_SOURCE_DIR) + "/platforms/";
const std::string kGpuCluster = kPlatforms + "cluster-64x4xV100.json";
const std::string kCpuCluster = kPlatforms + "cluster-64xcpu.json";

// Skips in a build without the MPI layer, which says so.
CliResult run_cluster(const std::string& args) {
  CliResult r = run_cli(args);
  if (r.err.find("need a build with MPI") != std::string::npos) r.exit_code = -77;
  return r;
}

TEST(CliCluster, ACheckedRunFactorisesAndSendsTheClosedFormsMessages) {
  ScratchDir scratch;
  const std::string trace = scratch.path("cluster.json");
  CliResult r =
      run_cluster("cholesky --n 512 --block 64 --platform " + kGpuCluster +
                  " --grid 2x2 --sched model --sim-run-kernels --check --json --trace " + trace);
  if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_TRUE(row["simulated"].get<bool>());
  EXPECT_EQ(row["ranks"], 4);
  EXPECT_EQ(row["check"], "passed");
  EXPECT_LT(row["residual"].get<double>(), row["residual_bound"].get<double>());
  EXPECT_GT(row["messages"].get<int>(), 0);
  EXPECT_EQ(row["messages"], row["closed_form_messages"]);
  EXPECT_EQ(row["bytes"], row["closed_form_bytes"]);
  std::ifstream in(trace);
  auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["ranks"], 4);
  bool rank3_device = false;
  for (const auto& e : doc["traceEvents"])
    if (e.value("name", "") == "process_name" &&
        e["args"]["name"].get<std::string>().rfind("rank 3 v100", 0) == 0)
      rank3_device = true;
  EXPECT_TRUE(rank3_device) << "no device track of rank 3 in the trace";
}

TEST(CliCluster, RunsRepeatExactly) {
  const std::string cmd = "cholesky --n 2048 --block 256 --platform " + kGpuCluster +
                          " --grid 2x2 --sched model --json";
  CliResult a = run_cluster(cmd);
  if (a.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
  CliResult b = run_cluster(cmd);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto ra = nlohmann::json::parse(a.out)["results"][0];
  auto rb = nlohmann::json::parse(b.out)["results"][0];
  EXPECT_GT(ra["time_s"].get<double>(), 0.0);
  EXPECT_EQ(ra["time_s"], rb["time_s"]);
  EXPECT_EQ(ra["per_rank"], rb["per_rank"]);
}

TEST(CliCluster, NodesOfCpusOnly) {
  CliResult r =
      run_cluster("cholesky --n 1024 --block 256 --platform " + kCpuCluster + " --grid 2x1 --json");
  if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["devices"], "cpu");
  EXPECT_EQ(row["messages"], row["closed_form_messages"]);
}

TEST(CliCluster, QrRunsAndChecksThere) {
  CliResult r = run_cluster("qr --n 384 --block 64 --platform " + kCpuCluster +
                            " --grid 2x2 --sim-run-kernels --check --json");
  if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
  if (r.err.find("needs LAPACKE") != std::string::npos) GTEST_SKIP() << "no LAPACKE";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(row["check"], "passed");
  EXPECT_GT(row["messages"].get<int>(), 0);
  EXPECT_GT(row["time_s"].get<double>(), 0.0);
}

TEST(CliCluster, StencilRunsChecksAndSendsTheClosedFormsStrips) {
  CliResult r = run_cluster("stencil --n 300 --block 64 --sweeps 3 --platform " + kCpuCluster +
                            " --grid 2x2 --sim-run-kernels --check --json");
  if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_TRUE(row["simulated"].get<bool>());
  EXPECT_EQ(row["check"], "passed");
  EXPECT_EQ(row["mismatches"], 0);
  // 5 x 5 tiles on 2 x 2 ranks: 2 borders of 5 tile edges, a strip each way, 3 sweeps.
  EXPECT_EQ(row["messages"], 3 * 2 * 5 * 2);
  EXPECT_EQ(row["messages"], row["closed_form_messages"]);
  EXPECT_EQ(row["bytes"], row["closed_form_bytes"]);
  EXPECT_GT(row["time_s"].get<double>(), 0.0);

  // Without the kernels: a larger grid in virtual time, no memory behind it.
  CliResult big = run_cluster("stencil --n 16384 --block 1024 --sweeps 2 --platform " +
                              kCpuCluster + " --grid 2x2 --json");
  ASSERT_EQ(big.exit_code, 0) << big.err;
  auto b = nlohmann::json::parse(big.out)["results"][0];
  EXPECT_EQ(b["messages"], b["closed_form_messages"]);
  EXPECT_GT(b["gbs"].get<double>(), 0.0);
}

TEST(CliCluster, BadRequestsAreOneLineAndExit2) {
  for (const std::string& args : {"--grid 9x9", "--grid 2x1 --check", "--grid 2x1 --gpus 1,2"}) {
    CliResult r = run_cluster("cholesky --n 512 --block 64 --platform " + kGpuCluster + " " + args);
    if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("conveyor: "), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
  }
  for (const std::string& args : {"--grid 9x9", "--grid 2x1 --check", "--devices opencl:0"}) {
    CliResult r = run_cluster("stencil --n 512 --block 64 --platform " + kCpuCluster + " " + args);
    if (r.exit_code == -77) GTEST_SKIP() << "no MPI layer in this build";
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace conveyor::test
