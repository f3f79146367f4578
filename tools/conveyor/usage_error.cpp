#include "usage_error.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace conveyor::cli {
namespace {

// The command CLI11 was parsing when it failed: it descends into a subcommand as soon as it sees
// its name, so the last one it recorded as parsed is where the unknown word was left over.
const CLI::App* deepest_parsed(const CLI::App& root) {
  const CLI::App* app = &root;
  for (;;) {
    std::vector<CLI::App*> parsed = app->get_subcommands();
    if (parsed.empty()) return app;
    app = parsed.back();
  }
}

// "sim run" for a sub-subcommand, "" for the root (whose messages need no prefix).
std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &app; a->get_parent() != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::string subcommand_list(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// One line on stderr whatever CLI11 wrote (some of its messages list items on separate lines).
std::string one_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// The innermost command that kept words CLI11 could not place (the one the user was talking
// to), else the deepest one it recognised.
const CLI::App& addressed(const CLI::App& root) {
  const CLI::App* app = deepest_parsed(root);
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    if (!a->remaining().empty()) return *a;
  return *app;
}

// What `app` says about a word it did not take, or about the command it needs.
struct Addressed {
  std::string prefix;  // "sim: ", "" for the root
  std::string listed;  // "commands: run, sweep, extensions; ", "" without subcommands
  std::string help;    // "conveyor sim --help"
  bool has_commands = false;
};

Addressed addressed_parts(const CLI::App& app) {
  const std::string path = command_path(app);
  const std::string commands = subcommand_list(app);
  return {path.empty() ? "" : path + ": ", commands.empty() ? "" : "commands: " + commands + "; ",
          "conveyor " + (path.empty() ? "" : path + " ") + "--help", !commands.empty()};
}

}  // namespace

std::string usage_message(const CLI::App& root, const CLI::ParseError& error) {
  const CLI::App& app = addressed(root);
  const Addressed a = addressed_parts(app);
  std::vector<std::string> left = app.remaining();
  if (!left.empty()) {
    const std::string& word = left.front();
    // Where commands are expected, a plain word was meant as one.
    const char* what = word.starts_with("-") ? "unknown option"
                       : a.has_commands      ? "unknown command"
                                             : "unexpected argument";
    return fmt::format("{}{} '{}' ({}see '{}')", a.prefix, what, word, a.listed, a.help);
  }
  if (a.has_commands && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr)
    return fmt::format("{}a command is required ({}see '{}')", a.prefix, a.listed, a.help);
  return fmt::format("{}{} (see '{}')", a.prefix, one_line(error.what()), a.help);
}

std::optional<std::string> unknown_command_message(const CLI::App& root) {
  const CLI::App& app = addressed(root);
  const Addressed a = addressed_parts(app);
  std::vector<std::string> left = app.remaining();
  if (left.empty() || !a.has_commands || left.front().starts_with("-")) return std::nullopt;
  return fmt::format("{}unknown command '{}' ({}see '{}')", a.prefix, left.front(), a.listed,
                     a.help);
}

}  // namespace conveyor::cli
