#pragma once
// Runs the conveyor CLI as a user would and captures what it prints.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "scratch_dir.hpp"

namespace conveyor::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `PROGRAM ARGS` through the shell (ARGS is shell syntax), returns exit code, stdout and
/// stderr.
inline CliResult run_program(const std::string& program, const std::string& args) {
  ScratchDir dir;
  const std::string out = dir.path("stdout"), err = dir.path("stderr");
  // `conveyor plot` runs Python from the source tree: no __pycache__ written into it by tests.
  std::string command =
      "PYTHONDONTWRITEBYTECODE=1 " + program + " " + args + " >" + out + " 2>" + err;
  int status = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(out);
  result.err = slurp(err);
  return result;
}

/// Runs `conveyor ARGS` (see run_program).
inline CliResult run_cli(const std::string& args) { return run_program(CONVEYOR_CLI, args); }

/// Whether `conveyor devices` lists opencl:0 (asked once per test binary).
inline bool opencl_present() {
  static const bool present = run_cli("devices --json").out.find("opencl:0") != std::string::npos;
  return present;
}

/// Whether this build runs `conveyor qr` (it needs LAPACKE; asked once per test binary).
inline bool qr_available() {
  static const bool available = [] {
    CliResult r = run_cli("qr --n 8 --block 8 --no-warmup --json");
    return r.exit_code == 0 || r.err.find("needs LAPACKE") == std::string::npos;
  }();
  return available;
}

/// Counts the lines of `text`.
inline int line_count(const std::string& text) {
  int n = 0;
  for (char ch : text) n += ch == '\n';
  return n;
}

}  // namespace conveyor::test
