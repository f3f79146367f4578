// conveyor cholesky: placeholder until its part lands.
#include "commands.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void add_cholesky_command(CLI::App& app) {
  app.add_subcommand("cholesky", "(not built yet)")->callback([] { throw Error("cholesky: not built yet"); });
}

}  // namespace conveyor::cli
