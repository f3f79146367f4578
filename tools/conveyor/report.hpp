#pragma once
// The tool's output: one result document per run (conveyor/records.hpp's envelope, notes and
// result rows), readable tables, CSV, and --json / --csv / --json-out handling.
//
//   Report report("stream", {{"threads", "1-2"}});
//   report.add_result({{"kernel", "triad"}, {"best_gbs", 20.1}});
//   std::cout << report.to_json().dump(2);
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conveyor/runtime.hpp"

namespace conveyor::cli {

/// What every subcommand offers for output: a table (default), --json, --csv, --json-out FILE.
struct OutputOptions {
  bool json = false;
  bool csv = false;
  std::string json_out;  ///< also write the JSON document to this file
  bool quiet = false;    ///< no progress line on stderr (progress_line.hpp)
};

class Report {
 public:
  Report(std::string command, nlohmann::json options);
  void add_result(nlohmann::json row);
  /// A caveat that belongs with the figures (e.g. "arrays below the STREAM size rule
  /// (--allow-small)").
  void add_note(std::string note);
  /// An extra top-level member, e.g. report.section("model") = {...}.
  nlohmann::json& section(const std::string& key);

  const nlohmann::json& results() const { return results_; }
  const std::vector<std::string>& notes() const { return notes_; }
  nlohmann::json to_json() const;

 private:
  std::string command_;
  nlohmann::json options_;
  nlohmann::json results_ = nlohmann::json::array();
  nlohmann::json sections_ = nlohmann::json::object();
  std::vector<std::string> notes_;
};

/// A text table: the first column left-aligned, the others right-aligned, a rule under the header.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// Fixed-point formatting for table cells: fixed(3.14159, 2) == "3.14".
std::string fixed(double value, int precision);

/// The copy and device-memory figures of a runtime's run, as every app's result row carries them:
/// copies and bytes per direction and in total, device allocations, evictions, write-backs, the
/// peak device use, and `links` (copies and bytes per link that carried any).
nlohmann::json copy_fields(const RuntimeStats& s);

/// A run's workers as every app's result row lists them: name, tasks, busy_s, predicted_busy_s
/// (model schedulers), and round_trip_us for a device that knows its completions' round trip.
nlohmann::json worker_rows(const RuntimeStats& s);
/// How many of a run's workers are CPU workers.
int cpu_worker_count(const RuntimeStats& s);

/// An unsigned JSON number as a table cell.
std::string count(const nlohmann::json& value);

/// The copies table the apps print after their results, one line per result row (which carries
/// copy_fields): the `leading` fields' values (named as the fields), copies by direction, in
/// total and MB; when any row had a device memory limit or evicted, its evictions, write-backs,
/// peak device use and limit; then `extra_headers` with each row's cells from `extra`.
Table copies_table(
    const nlohmann::json& rows, const std::vector<std::string>& leading,
    const std::vector<std::string>& extra_headers = {},
    const std::function<std::vector<std::string>(const nlohmann::json&)>& extra = {});

/// The items separated by `sep`: join({"s", "d"}) == "s,d" (list options as their records show
/// them).
std::string join(const std::vector<std::string>& items, const char* sep = ",");

/// The workers a runtime made with `o` has, as result rows name them: "cpu+opencl:0", "cuda:0",
/// "cpu+4 sim GPUs" on a simulated platform.
std::string workers_label(const RuntimeOptions& o);

/// The result rows as CSV: one column per scalar key, in order of first appearance.
void write_csv(std::ostream& out, const nlohmann::json& rows);

/// Writes the report as asked: JSON or CSV on stdout, else `print_table` then the notes; and the
/// JSON document to options.json_out when set (throws Error when that file cannot be written).
void emit(const Report& report, const OutputOptions& options,
          const std::function<void(std::ostream&)>& print_table);

}  // namespace conveyor::cli
