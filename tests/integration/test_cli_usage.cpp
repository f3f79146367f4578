// Bad command lines, at every level of commands: exit 2, one line on stderr that names the word it
// did not understand and, where a command was expected, the commands there are. All of these fail
// while parsing, before any measurement starts, so they take milliseconds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

const std::vector<std::string> kTopCommands = {"devices",  "stream",  "probe", "plot",
                                               "cholesky", "stencil", "sim"};
const std::vector<std::string> kSimCommands = {"run", "sweep", "extensions"};

void expect_one_usage_line(const CliResult& r, const std::string& args) {
  EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
  EXPECT_EQ(line_count(r.err), 1) << args << ": " << r.err;
  EXPECT_EQ(r.err.rfind("conveyor: ", 0), 0u) << args << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
}

void expect_lists(const std::string& text, const std::vector<std::string>& commands) {
  for (const auto& c : commands) EXPECT_NE(text.find(c), std::string::npos) << c << " in " << text;
}

TEST(CliUsage, UnknownCommandIsNamedWithTheCommands) {
  CliResult r = run_cli("bench");
  expect_one_usage_line(r, "bench");
  EXPECT_NE(r.err.find("unknown command 'bench'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("A subcommand is required"), std::string::npos) << r.err;
  expect_lists(r.err, kTopCommands);
}

// --help is answered before the words CLI11 could not place are looked at: an unknown command
// with --help must still be refused, not answered with the help of the command above it.
TEST(CliUsage, UnknownCommandWithHelpIsRefused) {
  for (const std::string args : {"qrx --help", "--help qrx", "qrx -h"}) {
    CliResult r = run_cli(args);
    expect_one_usage_line(r, args);
    EXPECT_NE(r.err.find("unknown command 'qrx'"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("conveyor --help"), std::string::npos) << args << ": " << r.err;
  }
  CliResult r = run_cli("sim bogus --help");
  expect_one_usage_line(r, "sim bogus --help");
  EXPECT_NE(r.err.find("sim: unknown command 'bogus'"), std::string::npos) << r.err;

  // The help of a command that exists is unchanged.
  r = run_cli("qr --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--ib"), std::string::npos) << r.out;
}

TEST(CliUsage, NoCommandListsTheCommands) {
  CliResult r = run_cli("");
  expect_one_usage_line(r, "(none)");
  EXPECT_NE(r.err.find("a command is required"), std::string::npos) << r.err;
  expect_lists(r.err, kTopCommands);
}

TEST(CliUsage, UnknownOptionBeforeTheCommandIsNamed) {
  CliResult r = run_cli("--verbose");
  expect_one_usage_line(r, "--verbose");
  EXPECT_NE(r.err.find("unknown option '--verbose'"), std::string::npos) << r.err;
}

TEST(CliUsage, UnknownSimCommandIsNamedWithTheSimCommands) {
  CliResult r = run_cli("sim bogus");
  expect_one_usage_line(r, "sim bogus");
  EXPECT_NE(r.err.find("sim: unknown command 'bogus'"), std::string::npos) << r.err;
  expect_lists(r.err, kSimCommands);
  EXPECT_NE(r.err.find("conveyor sim --help"), std::string::npos) << r.err;

  r = run_cli("sim");
  expect_one_usage_line(r, "sim");
  EXPECT_NE(r.err.find("sim: a command is required"), std::string::npos) << r.err;
  expect_lists(r.err, kSimCommands);
}

// Every command and sub-command: an option it does not have, and a word it does not take.
class CliUsageEveryCommand : public ::testing::TestWithParam<const char*> {};

TEST_P(CliUsageEveryCommand, UnknownOptionIsOneLineNamingIt) {
  std::string command = GetParam();
  CliResult r = run_cli(command + " --no-such-option");
  expect_one_usage_line(r, command);
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("conveyor: " + command + ": "), std::string::npos) << r.err;
}

TEST_P(CliUsageEveryCommand, StrayWordIsOneLine) {
  std::string command = GetParam();
  // plot and sim run take positional arguments: give them theirs, then one too many or a bad one.
  std::string args = command == "plot"      ? "plot a.json b.json"  // -o missing
                     : command == "sim run" ? "sim run hello extra"
                                            : command + " extra";
  CliResult r = run_cli(args);
  expect_one_usage_line(r, args);
}

INSTANTIATE_TEST_SUITE_P(Commands, CliUsageEveryCommand,
                         ::testing::Values("devices", "stream", "probe", "plot", "cholesky",
                                           "stencil", "sim run", "sim sweep", "sim extensions"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == ' ') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace conveyor::test
