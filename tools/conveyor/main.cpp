// conveyor: measure how data moves on this machine, run task graphs that move it for you, simulate
// hardware that overlaps moving with computing. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or
// input.
#include <fmt/format.h>

#include <iostream>
#include <new>
#include <string_view>

#include "cli_config.hpp"
#include "commands.hpp"
#include "common/blas_threads.hpp"
#include "conveyor/error.hpp"
#include "installed_data.hpp"
#include "usage_error.hpp"

namespace conveyor::cli {

void add_output_options(CLI::App& command, OutputOptions& options) {
  auto* json = command.add_flag("--json", options.json, "Print the result as one JSON document");
  command.add_flag("--csv", options.csv, "Print the result rows as CSV")->excludes(json);
  command
      .add_option("--json-out", options.json_out,
                  "Also write the JSON document to FILE (the table is still printed)")
      ->option_text("FILE");
}

void add_quiet_option(CLI::App& command, OutputOptions& options) {
  command.add_flag("--quiet,-q", options.quiet,
                   "No progress line on stderr (it is shown only when stderr is a terminal)");
}

namespace {

// `conveyor qrx --help` names a command that does not exist: say so rather than print the help of
// the command above it and succeed.
int help_or_unknown_command(CLI::App& app, const CLI::ParseError& help) {
  if (auto unknown = unknown_command_message(app)) {
    std::cerr << "conveyor: " << *unknown << '\n';
    return 2;
  }
  return app.exit(help);
}

// The commands whose work calls BLAS: the apps' CPU tile kernels, the probe's CPU matmul.
bool runs_blas(std::string_view command) {
  return command == "cholesky" || command == "qr" || command == "probe";
}

}  // namespace
}  // namespace conveyor::cli

int main(int argc, char** argv) {
  using namespace conveyor;
  // OpenBLAS chose its kernels when it was loaded: where it fell back to generic ones on a CPU it
  // does not know, the commands that run BLAS start again with the CPU's own (about 3x on an
  // Emerald Rapids Xeon). The others do not pay a second start (0.12 s on a 2-core Xeon, most of
  // it the CUDA libraries' initialisers).
  if (argc > 1 && cli::runs_blas(argv[1])) apps::common::restart_with_the_cpus_blas_kernels(argv);
  CLI::App app{
      "Conveyor moves data to where computation runs and measures how fast it moves.\n"
      "Rates are SI (1 GB/s = 1e9 B/s); sizes accept K/M/G (powers of 1024) or kB/MB/GB (powers of "
      "1000).",
      "conveyor"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("conveyor {}", cli::kVersion));
  app.footer(
      "Examples:\n"
      "  conveyor devices                      what this machine has\n"
      "  conveyor stream --threads 1-8         STREAM table, one row per thread count\n"
      "  conveyor probe                        Td / Tm / BW per device, writes the calibration\n"
      "  conveyor plot result.json -o fig.png  draw a result\n"
      "  conveyor models                       what the model scheduler measured\n"
      "Run 'conveyor COMMAND --help' for the options of each command.");
  cli::add_devices_command(app);
  cli::add_stream_command(app);
  cli::add_probe_command(app);
  cli::add_plot_command(app);
  cli::add_cholesky_command(app);
  cli::add_qr_command(app);
  cli::add_stencil_command(app);
  cli::add_models_command(app);
  cli::add_sim_command(app);
  cli::use_installed_sim_programs();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli::help_or_unknown_command(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli::help_or_unknown_command(app, e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const cli::QuietExit& e) {
    return e.code;
  } catch (const CLI::ParseError& e) {
    std::cerr << "conveyor: " << cli::usage_message(app, e) << '\n';
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "conveyor: " << e.what() << '\n';
    return 2;
  } catch (const Error& e) {
    std::cerr << "conveyor: error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "conveyor: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "conveyor: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
