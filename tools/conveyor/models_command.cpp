// conveyor models: the performance models the model schedulers learnt on this machine (measured
// task times per codelet, device and buffer footprint, the fitted size curve, and how well the
// models predicted the tasks they placed), as a table or JSON for `conveyor plot`.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "conveyor/models.hpp"

namespace conveyor::cli {
namespace {

struct ModelsOptions {
  std::string file;
  OutputOptions output;
};

std::string seconds(double s) {
  if (s <= 0) return "0";
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

void print_table(std::ostream& out, const Report& report, const std::string& path) {
  const auto& rows = report.results();
  if (rows.empty()) {
    out << "No performance models in " << path
        << " yet: run tasks with a model scheduler, e.g.\n"
           "  conveyor cholesky --n 4096 --block 256 --devices all\n";
    return;
  }
  out << "Performance models in " << path << "\n\n";
  Table t({"codelet", "device", "footprint", "bytes", "median", "mean", "deviation", "samples",
           "outliers"});
  for (const auto& r : rows)
    t.add_row({r["codelet"], r["device"], r["footprint"],
               std::to_string(r["bytes"].get<std::uint64_t>()), seconds(r["median_s"]),
               seconds(r["mean_s"]), seconds(r["deviation_s"]),
               std::to_string(r["samples"].get<std::uint64_t>()),
               std::to_string(r["outliers"].get<std::uint64_t>())});
  t.print(out);

  out << "\nPer codelet and device: fitted time(bytes) and the median |predicted - measured| / "
         "measured of the tasks placed with a prediction\n";
  Table f({"codelet", "device", "fitted curve", "prediction error", "predictions"});
  std::string last;
  for (const auto& r : rows) {
    std::string key = r["codelet"].get<std::string>() + "/" + r["device"].get<std::string>();
    if (key == last) continue;
    last = key;
    auto n = r["predictions"].get<std::uint64_t>();
    f.add_row({r["codelet"], r["device"], r["fit"],
               n ? fixed(r["median_error_percent"].get<double>(), 1) + " %" : "-",
               std::to_string(n)});
  }
  f.print(out);
  const nlohmann::json links = report.to_json()["links"];
  if (!links.empty()) {
    out << "\nLinks (host <-> device: latency + bytes / bandwidth)\n";
    Table l({"device", "latency us", "GB/s", "from"});
    for (const auto& [id, link] : links.items())
      l.add_row({id, fixed(link["latency_us"], 1), fixed(link["bw_gbs"], 2), link["source"]});
    l.print(out);
  }
}

void run_models(const ModelsOptions& o) {
  std::filesystem::path path =
      o.file.empty() ? default_models_path() : std::filesystem::path(o.file);
  std::error_code ec;
  if (!o.file.empty() && !std::filesystem::exists(path, ec))
    throw UsageError(fmt::format("models: no file {}", path.string()));
  const nlohmann::json models = describe_models(path);
  Report report("models", {{"file", path.string()}});
  for (const auto& row : models["rows"]) report.add_result(row);
  report.section("links") = models["links"];
  if (const auto& date = models["date"].get_ref<const std::string&>(); !date.empty())
    report.add_note("models last saved " + date);
  report.add_note(
      "median: the prediction for that footprint; mean and deviation leave out the outliers "
      "(further than 5 scaled MADs from the median)");
  emit(report, o.output, [&](std::ostream& out) { print_table(out, report, path.string()); });
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto o = std::make_shared<ModelsOptions>();
  CLI::App* command = app.add_subcommand(
      "models",
      "The performance models the model schedulers measured: task time per codelet, device and "
      "size, fitted curves, prediction error");
  command
      ->add_option("--file", o->file,
                   "Models file (default perfmodels.json next to the probe's calibration, "
                   "$XDG_CACHE_HOME/conveyor or ~/.cache/conveyor)")
      ->option_text("FILE");
  add_output_options(*command, o->output);
  command->footer(
      "Examples:\n"
      "  conveyor cholesky --n 4096 --block 256 --devices all   runs the model scheduler, which "
      "measures\n"
      "  conveyor models                                        the models it saved\n"
      "  conveyor models --json-out m.json && conveyor plot m.json -o models.png   time vs size\n"
      "A footprint identifies the sizes of a task's buffers; a model predicts from its own "
      "footprint's\nmedian once it has 3 samples, else from the fitted curve a * bytes^b + c, "
      "else from the time per flop.");
  command->callback([o] { run_models(*o); });
}

}  // namespace conveyor::cli
