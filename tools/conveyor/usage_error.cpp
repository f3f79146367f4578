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

}  // namespace

std::string usage_message(const CLI::App& root, const CLI::ParseError& error) {
  // CLI11 keeps the words it could not place with the command that saw them; the innermost one
  // that kept any is the one the user was talking to.
  const CLI::App* app = deepest_parsed(root);
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent())
    if (!a->remaining().empty()) {
      app = a;
      break;
    }
  const std::string path = command_path(*app);
  const std::string prefix = path.empty() ? "" : path + ": ";
  const std::string commands = subcommand_list(*app);
  const std::string help = "conveyor " + (path.empty() ? "" : path + " ") + "--help";
  const std::string listed = commands.empty() ? "" : "commands: " + commands + "; ";

  std::vector<std::string> left = app->remaining();
  if (!left.empty()) {
    const std::string& word = left.front();
    // Where commands are expected, a plain word was meant as one.
    const char* what = word.starts_with("-") ? "unknown option"
                       : !commands.empty()   ? "unknown command"
                                             : "unexpected argument";
    return fmt::format("{}{} '{}' ({}see '{}')", prefix, what, word, listed, help);
  }
  if (!commands.empty() && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr)
    return fmt::format("{}a command is required ({}see '{}')", prefix, listed, help);
  return fmt::format("{}{} (see '{}')", prefix, one_line(error.what()), help);
}

}  // namespace conveyor::cli
