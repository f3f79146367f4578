#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

TEST(CliBasics, HelpListsEveryCommandAndExitsZero) {
  CliResult r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"devices", "stream", "probe", "plot"})
    EXPECT_NE(r.out.find(command), std::string::npos) << command;
}

TEST(CliBasics, NoCommandIsAUsageError) {
  CliResult r = run_cli("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(CliBasics, UnknownCommandIsOneLineAndExitTwo) {
  CliResult r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
}

TEST(CliDevices, TableNamesTheCpu) {
  CliResult r = run_cli("devices");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Last-level cache"), std::string::npos);
  EXPECT_NE(r.out.find("\ncpu "), std::string::npos) << r.out;
}

TEST(CliDevices, JsonFollowsTheResultSchema) {
  CliResult r = run_cli("devices --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const char* key :
       {"conveyor", "schema", "command", "machine", "build", "options", "date", "results"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["command"], "devices");
  ASSERT_FALSE(doc["results"].empty());
  EXPECT_EQ(doc["results"][0]["id"], "cpu");
  EXPECT_GT(doc["results"][0]["memory_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_GT(doc["machine"]["llc_total_bytes"].get<std::uint64_t>(), 0u);
}

TEST(CliDevices, JsonOutToAnUnwritablePathIsARuntimeError) {
  CliResult r = run_cli("devices --json-out /nonexistent-dir/x.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace conveyor::test
