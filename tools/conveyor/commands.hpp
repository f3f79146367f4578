#pragma once
// One function per subcommand, each in its own file; main.cpp adds them all.
#include <CLI/CLI.hpp>

#include "conveyor/report.hpp"

namespace conveyor::cli {

void add_devices_command(CLI::App& app);
void add_stream_command(CLI::App& app);
void add_probe_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_sim_command(CLI::App& app);
void add_cholesky_command(CLI::App& app);
void add_models_command(CLI::App& app);

/// --json, --csv and --json-out FILE, the same on every subcommand.
void add_output_options(CLI::App& command, OutputOptions& options);

}  // namespace conveyor::cli
