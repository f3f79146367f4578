// conveyor plot: draws JSON results (stream, probe, cholesky, qr, stencil, models, sim, sim_sweep)
// and Chrome traces with matplotlib, by running the conveyor_plot package from the source tree's
// python/ folder (or, installed, from <prefix>/share/conveyor/python).
// Inputs are checked here first, so that bad input fails at once and without Python.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli_config.hpp"
#include "commands.hpp"
#include "conveyor/error.hpp"
#include "installed_data.hpp"

extern char** environ;

namespace conveyor::cli {
namespace {

namespace fs = std::filesystem;

// Keep in step with PLOTTABLE in python/conveyor_plot/results.py.
constexpr std::array<std::string_view, 9> kPlottable = {
    "cholesky", "models", "probe", "qr", "sim", "sim_sweep", "stencil", "stream", "trace"};
constexpr std::string_view kPythonPrefix = "conveyor_plot: ";

struct PlotOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string title;
  int dpi = 0;
  std::string python = "python3";
};

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// The kind of result in `path` ("stream", ..., "trace"); UsageError when it has no figure.
std::string result_kind(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("plot: {}: no such file", path));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("plot: {}: is a directory", path));
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("plot: {}: cannot read ({})", path, std::strerror(errno)));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    std::string_view what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag: the rest says where and why.
    if (auto tag_end = what.find("] "); tag_end != std::string_view::npos)
      what.remove_prefix(tag_end + 2);
    throw UsageError(fmt::format("plot: {}: not JSON ({})", path, what));
  }
  if (doc.is_array() || (doc.is_object() && doc.contains("traceEvents"))) return "trace";
  if (!doc.is_object() || !doc.contains("conveyor") || !doc.contains("command"))
    throw UsageError(fmt::format(
        "plot: {}: not a Conveyor result (no \"conveyor\" and \"command\" keys) nor a Chrome trace",
        path));
  std::string command =
      doc["command"].is_string() ? doc["command"].get<std::string>() : doc["command"].dump();
  if (std::find(kPlottable.begin(), kPlottable.end(), command) == kPlottable.end())
    throw UsageError(fmt::format("plot: {}: cannot plot '{}' results (plottable: {})", path,
                                 command, fmt::join(kPlottable, ", ")));
  return command;
}

void check_inputs(const PlotOptions& options) {
  fs::path output(options.output);
  std::string extension = lowercase(output.extension().string());
  if (extension != ".png" && extension != ".svg")
    throw UsageError(fmt::format("plot: output '{}' must end in .png or .svg", options.output));
  std::string first_kind;
  for (const auto& path : options.inputs) {
    std::string kind = result_kind(path);
    if (kind == "sim_sweep") kind = "sim";  // drawn by one module, so they may be mixed
    if (first_kind.empty()) first_kind = kind;
    if (kind != first_kind)
      throw UsageError(
          fmt::format("plot: cannot draw {} and {} results in one figure", first_kind, kind));
  }
  // Checked before drawing, which takes seconds; a runtime failure rather than bad usage.
  std::error_code ec;
  if (output.has_parent_path() && !fs::is_directory(output.parent_path(), ec))
    throw Error(fmt::format("plot: cannot write {}: no directory {}", options.output,
                            output.parent_path().string()));
}

/// The environment of the child: ours, with the repository's python/ folder first on PYTHONPATH.
std::vector<std::string> child_environment(const std::string& package_root) {
  std::vector<std::string> env;
  std::string python_path = "PYTHONPATH=" + package_root;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry = *e;
    if (entry.starts_with("PYTHONPATH=")) {
      if (entry.size() > 11) python_path += ":" + std::string(entry.substr(11));
    } else if (!entry.starts_with("MPLBACKEND=")) {
      env.emplace_back(entry);
    }
  }
  env.push_back(python_path);
  env.emplace_back("MPLBACKEND=Agg");
  return env;
}

struct ChildResult {
  int status = 0;
  std::string err;
};

/// Runs argv[0] (searched on PATH) with `env`, stdout inherited, stderr captured.
ChildResult run_child(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("plot: pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);  // dup2 clears close-on-exec
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw Error(
        fmt::format("plot: cannot run '{}' ({}); install Python 3 with matplotlib "
                    "(scripts/setup-deps.sh) or set "
                    "CONVEYOR_PYTHON",
                    args[0], std::strerror(rc)));
  }
  ChildResult result;
  std::array<char, 4096> buffer;
  for (;;) {
    ssize_t n = read(fds[0], buffer.data(), buffer.size());
    if (n > 0) {
      result.err.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

/// Forwards the child's stderr; on failure its last line becomes the error, so that the user sees
/// one "conveyor: ..." line (after any warnings or a traceback Python printed before it).
void finish(const ChildResult& child, const std::string& python) {
  std::string err = child.err;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  bool ok = WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0;
  if (ok) {
    if (!err.empty()) std::cerr << err << '\n';
    return;
  }
  if (!WIFEXITED(child.status))
    throw Error(fmt::format("plot: {} was killed by signal {}", python, WTERMSIG(child.status)));
  std::size_t last = err.rfind('\n');
  std::string message = last == std::string::npos ? err : err.substr(last + 1);
  if (last != std::string::npos) std::cerr << err.substr(0, last) << '\n';
  if (message.starts_with(kPythonPrefix)) message.erase(0, kPythonPrefix.size());
  if (message.starts_with("error: ")) message.erase(0, 7);
  if (message.empty())
    message = fmt::format("{} exited with status {}", python, WEXITSTATUS(child.status));
  if (WEXITSTATUS(child.status) == 2) throw UsageError("plot: " + message);
  throw Error("plot: " + message);
}

void run_plot(const PlotOptions& options) {
  check_inputs(options);
  // An installed conveyor carries the package under <prefix>/share/conveyor/python.
  auto installed = installed_data_dir();
  std::string package_root =
      installed ? (*installed / "python").string() : std::string(kSourceDir) + "/python";
  if (!fs::exists(package_root + "/conveyor_plot/__main__.py"))
    throw Error(fmt::format(
        "plot: the conveyor_plot package is missing from {} (was the source tree moved?)",
        package_root));
  std::vector<std::string> args = {options.python, "-m", "conveyor_plot"};
  args.insert(args.end(), options.inputs.begin(), options.inputs.end());
  args.insert(args.end(), {"-o", options.output});
  if (!options.title.empty()) args.insert(args.end(), {"--title", options.title});
  if (options.dpi > 0) args.insert(args.end(), {"--dpi", fmt::format("{}", options.dpi)});
  std::cout.flush();  // the child writes to the same stdout
  finish(run_child(args, child_environment(package_root)), options.python);
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* command = app.add_subcommand("plot",
                                         "Draw JSON results (stream, probe, cholesky, qr, stencil, "
                                         "models, sim, sim_sweep) or a Chrome trace as PNG/SVG");
  command
      ->add_option("results", options->inputs, "Result files written with --json-out (or a trace)")
      ->required()
      ->option_text("RESULT.json...");
  command->add_option("-o,--output", options->output, "Figure to write: FILE.png or FILE.svg")
      ->required()
      ->option_text("FILE");
  command
      ->add_option("--title", options->title,
                   "Figure title (default: the command and what it measures)")
      ->option_text("TEXT");
  command->add_option("--dpi", options->dpi, "Resolution of a PNG in dots per inch (default 150)")
      ->check(CLI::Range(1, 3000))
      ->option_text("N");
  command
      ->add_option(
          "--python", options->python,
          "Python 3 with matplotlib that draws the figure (default: $CONVEYOR_PYTHON, else "
          "python3 on PATH)")
      ->envname("CONVEYOR_PYTHON")
      ->option_text("EXE");
  command->footer(
      "Examples:\n"
      "  conveyor stream --threads 1-8 --json-out stream.json && conveyor plot stream.json -o "
      "stream.png\n"
      "  conveyor plot a.json b.json -o both.svg --title \"two machines\"\n"
      "  conveyor plot qr-1024.json qr-2048.json -o qr.png   runs of one machine: one line\n"
      "  conveyor plot trace.json -o gantt.png       Gantt chart of a Chrome trace\n"
      "Bandwidths are SI (1 GB/s = 1e9 B/s), times in us or s. Needs Python 3 with matplotlib "
      "(scripts/setup-deps.sh installs it).");
  command->callback([options] { run_plot(*options); });
}

}  // namespace conveyor::cli
