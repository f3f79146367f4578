#pragma once
// Runs the conveyor CLI as a user would and captures what it prints.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace conveyor::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `PROGRAM ARGS` through the shell (ARGS is shell syntax), returns exit code, stdout and
/// stderr.
inline CliResult run_program(const std::string& program, const std::string& args) {
  static int counter = 0;
  std::string base = ::testing::TempDir() + "conveyor_cli_" + std::to_string(getpid()) + "_" +
                     std::to_string(counter++);
  std::string command = program + " " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(base + ".out");
  result.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return result;
}

/// Runs `conveyor ARGS` (see run_program).
inline CliResult run_cli(const std::string& args) { return run_program(CONVEYOR_CLI, args); }

/// Counts the lines of `text`.
inline int line_count(const std::string& text) {
  int n = 0;
  for (char ch : text) n += ch == '\n';
  return n;
}

}  // namespace conveyor::test
