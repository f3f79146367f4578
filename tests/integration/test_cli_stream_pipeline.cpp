// conveyor stream --pipeline: the figure-5 table and JSON rows that `conveyor plot` draws; bad
// options exit 2 with one line; a mover failure exits 1 and says the destination is complete.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

const std::string kSmall = "stream --elements 256K --block 64KiB --depth 2 --repeats 2 ";

TEST(CliStreamPipeline, JsonRowsPairCpuOnlyWithPipelined) {
  for (const char* mover : {"thread", "prefetch"}) {
    CliResult r =
        run_cli(kSmall + "--pipeline " + mover + " --threads 1-2 --kernels triad,dot --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["command"], "stream");
    ASSERT_EQ(doc["results"].size(), 8u);  // 2 thread counts x 2 kernels x (CPU-only, pipelined)
    for (const auto& row : doc["results"]) {
      EXPECT_TRUE(row["validated"].get<bool>());
      EXPECT_GT(row["best_gbs"].get<double>(), 0);
      EXPECT_TRUE(row.contains("speedup"));
      if (row["pipeline"] == "none") {
        EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0);
      } else {
        EXPECT_EQ(row["pipeline"], mover);
        std::string s = row["strategy"];
        EXPECT_TRUE(s == "all" || s == "split" || s == "none") << s;
      }
    }
  }
}

TEST(CliStreamPipeline, TableShowsOverlapForAStagingMover) {
  CliResult r = run_cli(kSmall + "--pipeline thread --strategy all --threads 1 --kernels scale");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CPU-only GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("overlap"), std::string::npos);
  EXPECT_NE(r.out.find(" all "), std::string::npos) << r.out;
}

TEST(CliStreamPipeline, OpenClDeviceStream) {
  CliResult probe = run_cli("devices --json");
  if (probe.out.find("\"opencl:0\"") == std::string::npos) GTEST_SKIP() << "no OpenCL device";
  CliResult r = run_cli(kSmall + "--pipeline opencl --threads 1 --kernels add --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][1]["device"], "opencl:0");
  EXPECT_TRUE(doc["results"][1]["validated"].get<bool>());
}

TEST(CliStreamPipeline, BadOptionsExit2WithOneLine) {
  for (const std::string args :
       {"--pipeline teleport", "--pipeline thread --strategy some", "--pipeline thread --depth 0",
        "--pipeline thread --block 100", "--pipeline opencl:77", "--pipeline cpu",
        "--pipeline thread --device cpu"}) {
    CliResult r = run_cli(kSmall + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << args << ": " << r.err;
  }
}

TEST(CliStreamPipeline, NoDsaIsExplained) {
  CliResult r = run_cli(kSmall + "--pipeline dsa --threads 1");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a DSA work queue";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no DSA work queue found"), std::string::npos) << r.err;
}

TEST(CliStreamPipeline, CopyFailureExits1AndSaysTheDestinationIsComplete) {
  CliResult r =
      run_cli(kSmall + "--pipeline thread --strategy all --threads 1 --inject-copy-failure 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("destination is complete"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test
