// The progress line of long commands (tools/conveyor/progress_line.hpp): on stderr when it is a
// terminal (a pseudo-terminal here), never in a pipe or with --quiet, and never on stdout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "integration/cli_runner.hpp"

namespace conveyor::test {
namespace {

/// Runs `conveyor ARGS` with stderr on a pseudo-terminal (200 columns) and stdout in a file;
/// returns what each received. Bounded: a run past two minutes is killed and fails.
CliResult run_cli_on_terminal(const std::string& args) {
  ScratchDir dir;
  const std::string out = dir.path("stdout");
  int master = -1, slave = -1;
  winsize size{};
  size.ws_col = 200;
  size.ws_row = 40;
  if (openpty(&master, &slave, nullptr, nullptr, &size) != 0) {
    ADD_FAILURE() << "openpty failed";
    return {};
  }
  const std::string command = std::string(CONVEYOR_CLI) + " " + args + " >" + out;
  pid_t child = fork();
  if (child == 0) {
    close(master);
    dup2(slave, STDERR_FILENO);
    close(slave);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(slave);
  CliResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  char buffer[4096];
  for (;;) {
    pollfd p{master, POLLIN, 0};
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      ADD_FAILURE() << "conveyor " << args << " ran past two minutes";
      break;
    }
    if (poll(&p, 1, 200) <= 0) continue;
    ssize_t n = read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO once the child and its children closed the terminal
    result.err.append(buffer, static_cast<std::size_t>(n));
  }
  close(master);
  int status = 0;
  waitpid(child, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  result.out = ss.str();
  return result;
}

constexpr const char* kStream = "stream --threads 1-2 --elements 1M --allow-small --repeats 2";
constexpr const char* kStencil = "stencil --n 256 --block 64 --sweeps 2 --repeat 3";

TEST(CliProgress, StreamShowsItsRunsOnATerminalAndErasesTheLine) {
  CliResult r = run_cli_on_terminal(kStream);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stream: cpu standard, 1 thread: runs 0 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stream: cpu standard, 2 threads: runs 1 of 2"), std::string::npos) << r.err;
  // The line is redrawn in place and erased at the end, so that the table starts on a clean line.
  EXPECT_EQ(r.err.rfind("\r\033[K"), r.err.size() - 4) << r.err;
  EXPECT_EQ(r.out.find("runs"), std::string::npos) << "progress on stdout:\n" << r.out;
}

TEST(CliProgress, WorkloadsShowTheirTimedRuns) {
  CliResult r = run_cli_on_terminal(kStencil);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stencil: timed runs 1 of 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("left"), std::string::npos) << "no time left shown:\n" << r.err;
}

TEST(CliProgress, ASimulatedClusterShowsRankZerosRuns) {
  const std::string cluster = std::string(CONVEYOR_SOURCE_DIR) + "/platforms/cluster-64xcpu.json";
  CliResult r = run_cli_on_terminal("qr --platform " + cluster +
                                    " --grid 2x2 --n 4096 --block 512 --repeat 2");
  if (r.exit_code == 2 && r.err.find("MPI") != std::string::npos)
    GTEST_SKIP() << "a build without MPI has no simulated clusters";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("qr: timed runs 1 of 2"), std::string::npos) << r.err;
}

TEST(CliProgress, NothingInAPipeOrWithQuiet) {
  CliResult piped = run_cli(kStream);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  CliResult quiet = run_cli_on_terminal(std::string(kStream) + " --quiet");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  CliResult stencil = run_cli_on_terminal(std::string(kStencil) + " -q");
  ASSERT_EQ(stencil.exit_code, 0) << stencil.err;
  EXPECT_EQ(stencil.err, "");
}

TEST(CliProgress, JsonOnStdoutIsTheSameWithTheLineShown) {
  CliResult shown =
      run_cli_on_terminal("sim sweep --benchmarks pipeline --nodes 16 --entries 0,8 --csv");
  if (shown.exit_code != 0 && shown.err.find("program") != std::string::npos)
    GTEST_SKIP() << "RISC-V programs not built (no cross compiler)";
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.err.find("sim sweep: simulations 2 of 2"), std::string::npos) << shown.err;
  CliResult piped = run_cli("sim sweep --benchmarks pipeline --nodes 16 --entries 0,8 --csv");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(shown.out, piped.out);  // the simulator is deterministic: same rows
}

}  // namespace
}  // namespace conveyor::test
