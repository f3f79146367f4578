#pragma once
// One function per subcommand, each in its own file; main.cpp adds them all.
#include <CLI/CLI.hpp>

#include "report.hpp"

namespace conveyor::cli {

void add_devices_command(CLI::App& app);
void add_stream_command(CLI::App& app);
void add_probe_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_cholesky_command(CLI::App& app);
void add_qr_command(CLI::App& app);
void add_stencil_command(CLI::App& app);
void add_models_command(CLI::App& app);

/// Ends a command with `code` without a message: thrown by the ranks of a distributed run other
/// than rank 0 for an error that every rank has and rank 0 prints (one line per job, not per rank).
struct QuietExit {
  int code;
};

/// --json, --csv and --json-out FILE, the same on every subcommand.
void add_output_options(CLI::App& command, OutputOptions& options);
/// --quiet: on the commands that show a progress line (progress_line.hpp).
void add_quiet_option(CLI::App& command, OutputOptions& options);

}  // namespace conveyor::cli
