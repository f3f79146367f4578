// A conveyor run killed while it writes a file leaves the previous file whole (issue: every file
// Conveyor writes appears whole or not at all). Deterministic: the child's file-size limit kills
// it (SIGXFSZ) in the middle of writing, as SIGKILL at the wrong moment would; then random
// SIGKILLs during whole runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scratch_dir.hpp"

namespace conveyor::test {
namespace {

// Starts the CLI with `args` (output to /dev/null), its files limited to `max_file_bytes` (0: no
// limit); returns its pid.
pid_t start_cli(const std::vector<std::string>& args, rlim_t max_file_bytes) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (max_file_bytes) {
    rlimit limit{max_file_bytes, max_file_bytes};
    setrlimit(RLIMIT_FSIZE, &limit);
    signal(SIGXFSZ, SIG_DFL);
  }
  FILE* null = std::fopen("/dev/null", "w");
  if (null) {
    dup2(fileno(null), STDOUT_FILENO);
    dup2(fileno(null), STDERR_FILENO);
  }
  std::vector<char*> argv{const_cast<char*>(CONVEYOR_CLI)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(CONVEYOR_CLI, argv.data());
  _exit(127);
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

const std::string kOld = "{\"previous\": \"result\"}\n";

// A Cholesky of 32 x 32 tiles writes a trace of several hundred kilobytes and a result document.
std::vector<std::string> cholesky_args(const std::string& trace, const std::string& result) {
  return {"cholesky", "--n",      "1536",    "--block", "48",         "--cpus",
          "2",        "--no-pin", "--trace", trace,     "--json-out", result};
}

TEST(CrashSafeOutput, KilledWhileWritingTheTraceLeavesThePreviousOne) {
  ScratchDir dir;
  const std::string trace = dir.path("t.json"), result = dir.path("r.json");
  std::ofstream(trace) << kOld;
  std::ofstream(result) << kOld;
  int status = wait_for(start_cli(cholesky_args(trace, result), 64 * 1024));
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run was meant to die writing its trace";
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
  EXPECT_EQ(read_text(trace), kOld);
  EXPECT_EQ(read_text(result), kOld);
}

TEST(CrashSafeOutput, KilledWhileWritingTheResultLeavesThePreviousOne) {
  ScratchDir dir;
  const std::string result = dir.path("devices.json");
  std::ofstream(result) << kOld;
  // The limit kills the writer (SIGXFSZ), or the write fails (EFBIG) where a library of the run
  // ignores that signal: either way the write stops in the middle.
  int status = wait_for(start_cli({"devices", "--json-out", result}, 512));
  ASSERT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) == 1) << "the write was meant to fail";
  EXPECT_EQ(read_text(result), kOld);
  // Without the limit the same run replaces it whole.
  ASSERT_EQ(wait_for(start_cli({"devices", "--json-out", result}, 0)), 0);
  EXPECT_TRUE(nlohmann::json::parse(read_text(result)).contains("results"));
}

TEST(CrashSafeOutput, SigkillAtAnyMomentLeavesWholeFiles) {
  ScratchDir dir;
  const std::string trace = dir.path("t.json"), result = dir.path("r.json");
  std::ofstream(trace) << kOld;
  std::ofstream(result) << kOld;
  // How long a whole run takes here, then kills spread over it.
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_for(start_cli(cholesky_args(trace, result), 0)), 0);
  const auto whole = std::chrono::steady_clock::now() - t0;
  std::mt19937 rng(20261125);
  int replaced = 0;
  for (int k = 0; k < 8; ++k) {
    std::ofstream(trace) << kOld;
    pid_t pid = start_cli(cholesky_args(trace, result), 0);
    std::this_thread::sleep_for(whole * (0.5 + 0.6 * std::uniform_real_distribution<>()(rng)));
    kill(pid, SIGKILL);
    wait_for(pid);
    for (const auto& path : {trace, result}) {
      const std::string text = read_text(path);
      EXPECT_TRUE(text == kOld || nlohmann::json::accept(text)) << path << " is half written";
    }
    replaced += read_text(trace) != kOld;
  }
  RecordProperty("runs_killed_after_the_trace_was_replaced", replaced);
}

}  // namespace
}  // namespace conveyor::test
