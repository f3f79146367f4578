// conveyor probe: placeholder until its part lands.
#include "commands.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void add_probe_command(CLI::App& app) {
  app.add_subcommand("probe", "(not built yet)")->callback([] {
    throw Error("probe: not built yet");
  });
}

}  // namespace conveyor::cli
