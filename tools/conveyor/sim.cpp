// conveyor sim: placeholder until its part lands.
#include "commands.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void add_sim_command(CLI::App& app) {
  app.add_subcommand("sim", "(not built yet)")->callback([] { throw Error("sim: not built yet"); });
}

}  // namespace conveyor::cli
