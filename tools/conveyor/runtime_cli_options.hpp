#pragma once
// The options the workload commands (cholesky, qr, stencil) share: the workers and the scheduler,
// the device memory, a simulated platform, MPI ranks, and how a run is timed, checked and traced.
// Registered once (add_runtime_options), with the same names and defaults everywhere, and checked
// once (resolve_runtime), which says where the run goes and with which runtime options.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/runtime.hpp"

namespace conveyor::cli {

/// The values of the shared options, as given.
struct RuntimeCliOptions {
  std::vector<std::string> devices{"cpu"};
  bool devices_given = false;  // --devices on the command line (a simulated node: its pick)
  std::string sched;           // empty: the command's default (the runtime's choice, "auto")
  int cpus = -1;
  int repeat = 1;
  bool no_warmup = false;
  bool no_pin = false;
  bool check = false;
  std::string trace;
  std::string device_memory;  // empty: the devices' own memory
  int run_ahead = 0;
  bool run_ahead_given = false;  // else the runtime's default (RuntimeOptions::run_ahead)
  std::string grid;              // PxQ: distributed over MPI ranks
  std::string platform;          // a simulated node or cluster file
  bool sim_run_kernels = false;

  /// Copies what every run configuration takes from these options (the apps' RunConfig).
  template <class RunConfig>
  void apply(RunConfig& config) const {
    config.repeat = repeat;
    config.warmup = !no_warmup;
    config.check = check;
    config.trace = trace;
  }
};

/// What a command says differently about the shared options: what it runs and checks.
struct RuntimeCommand {
  std::string_view name;       ///< "cholesky": the command, prefix of its usage errors
  bool simulated_node = true;  ///< --platform takes a node file too (else a cluster file only)
  /// --sched: the schedulers and which one is the default (cholesky's default differs)
  std::string_view sched =
      "eager, model, model-ready, round-robin, offload, locality (default: model when a device is "
      "listed, else eager; docs/runtime.md)";
  std::string_view timed;    ///< --repeat: what is timed ("Factorisations timed")
  std::string_view warmup;   ///< --no-warmup: the warm-up ("factorisation (3 x 3 tiles)")
  std::string_view check;    ///< --check: its whole help
  std::string_view too_big;  ///< --device-memory: "a matrix larger than it still factorises"
  std::string_view layout;   ///< --grid: how the tiles are spread over the ranks
};

/// Registers the shared options on `command`, storing into `options`.
void add_runtime_options(CLI::App& command, RuntimeCliOptions& options,
                         const RuntimeCommand& about);

/// Where a run goes.
enum class RunPlace {
  this_node,          ///< the runtime on this machine's workers
  simulated_node,     ///< --platform with a node file: the runtime in virtual time
  ranks,              ///< --grid or a launch by mpirun: one runtime per MPI rank
  simulated_cluster,  ///< --platform with a cluster file: every rank a thread of this process
};

struct ResolvedRuntime {
  RunPlace place = RunPlace::this_node;
  /// The node the run simulates: the --platform file, or the node a cluster file names; empty on
  /// real hardware.
  std::string node_platform;
  /// Workers (CPU workers 0 when cpu is not in --devices), pinning, the scheduler when --sched
  /// names one, the device memory limit; on a simulated node its platform and all its devices; on
  /// a simulated node or cluster, whether the kernels run.
  RuntimeOptions runtime;
  bool distributed() const {
    return place == RunPlace::ranks || place == RunPlace::simulated_cluster;
  }
};

/// Checks the shared options together (UsageError "COMMAND: ..." for the first that is wrong) and
/// says where the run goes. MPI is used only when asked for (--grid, mpirun, a cluster file).
ResolvedRuntime resolve_runtime(const RuntimeCliOptions& options, const RuntimeCommand& about);

/// The report's note on a tile size chosen by the tile rule (no --block): `row` is the first
/// result row (its block).
std::string chosen_block_note(const nlohmann::json& row, int n);

/// The shared options as the report's "options" object records them.
nlohmann::json report_options(const RuntimeCliOptions& options);

}  // namespace conveyor::cli
