// conveyor plot: placeholder until its part lands.
#include "commands.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void add_plot_command(CLI::App& app) {
  app.add_subcommand("plot", "(not built yet)")->callback([] { throw Error("plot: not built yet"); });
}

}  // namespace conveyor::cli
