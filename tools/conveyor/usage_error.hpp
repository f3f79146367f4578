#pragma once
// The one line `conveyor` prints for a command line it cannot parse.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace conveyor::cli {

/// The message for a failed parse of `root`'s command line, without the "conveyor: " prefix.
/// CLI11 reports an unknown command as "A subcommand is required" (or "The following argument was
/// not expected"), which names neither the word nor the commands; this names both, for the
/// deepest command that was recognised:
///
///   conveyor bench      ->  unknown command 'bench' (commands: devices, stream, ...)
///   conveyor sim bogus  ->  sim: unknown command 'bogus' (commands: run, sweep, extensions)
///   conveyor sim        ->  sim: a command is required (commands: run, sweep, extensions)
///
///   conveyor sim run hello --bogus  ->  sim run: unknown option '--bogus' (see ...)
///
/// Any other parse error keeps CLI11's text, prefixed by the command it concerns.
std::string usage_message(const CLI::App& root, const CLI::ParseError& error);

/// CLI11 answers --help before it looks at the words it could not place, so `conveyor qrx --help`
/// would print the main help and succeed. When a word that names no command was left where
/// commands are expected, this is usage_message's line for it ("unknown command 'qrx' (...)"),
/// for the caller to print instead of the help; else nothing.
std::optional<std::string> unknown_command_message(const CLI::App& root);

}  // namespace conveyor::cli
