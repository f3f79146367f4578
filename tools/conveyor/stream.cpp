// conveyor stream: placeholder until its part lands.
#include "commands.hpp"
#include "conveyor/error.hpp"

namespace conveyor::cli {

void add_stream_command(CLI::App& app) {
  app.add_subcommand("stream", "(not built yet)")->callback([] {
    throw Error("stream: not built yet");
  });
}

}  // namespace conveyor::cli
