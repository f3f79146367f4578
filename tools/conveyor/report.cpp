#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "conveyor/error.hpp"
#include "conveyor/files.hpp"
#include "conveyor/records.hpp"

namespace conveyor::cli {

Report::Report(std::string command, nlohmann::json options)
    : command_(std::move(command)), options_(std::move(options)) {}

void Report::add_result(nlohmann::json row) { results_.push_back(std::move(row)); }

void Report::add_note(std::string note) { notes_.push_back(std::move(note)); }

nlohmann::json& Report::section(const std::string& key) { return sections_[key]; }

nlohmann::json Report::to_json() const {
  nlohmann::json doc = result_envelope(command_, options_);
  doc["notes"] = notes_;
  doc["results"] = results_;
  for (const auto& [key, value] : sections_.items()) doc[key] = value;
  return doc;
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += c == 0 ? fmt::format("{:<{}}", cells[c], width[c])
                     : fmt::format("{:>{}}", cells[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print_row(headers_);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  out << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& row : rows_) print_row(row);
}

std::string fixed(double value, int precision) { return fmt::format("{:.{}f}", value, precision); }

nlohmann::json worker_rows(const RuntimeStats& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& w : s.workers) {
    nlohmann::json row = {{"name", w.name},
                          {"tasks", w.tasks},
                          {"busy_s", w.busy_seconds},
                          {"predicted_busy_s", w.predicted_seconds}};
    if (w.round_trip_seconds >= 0) row["round_trip_us"] = w.round_trip_seconds * 1e6;
    rows.push_back(std::move(row));
  }
  return rows;
}

int cpu_worker_count(const RuntimeStats& s) {
  int cpus = 0;
  for (const auto& w : s.workers) cpus += w.name.rfind("cpu", 0) == 0;
  return cpus;
}

nlohmann::json copy_fields(const RuntimeStats& s) {
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : s.links)
    links.push_back({{"from", l.from}, {"to", l.to}, {"copies", l.copies}, {"bytes", l.bytes}});
  return {{"h2d_copies", s.h2d_copies},
          {"d2h_copies", s.d2h_copies},
          {"d2d_copies", s.d2d_copies},
          {"total_copies", s.total_copies()},
          {"h2d_bytes", s.h2d_bytes},
          {"d2h_bytes", s.d2h_bytes},
          {"d2d_bytes", s.d2d_bytes},
          {"total_bytes", s.total_bytes()},
          {"device_allocations", s.device_allocations},
          {"evictions", s.evictions},
          {"write_backs", s.write_backs},
          {"write_back_bytes", s.write_back_bytes},
          {"peak_device_bytes", s.peak_device_bytes},
          {"links", links}};
}

std::string count(const nlohmann::json& value) {
  return std::to_string(value.get<std::uint64_t>());
}

Table copies_table(const nlohmann::json& rows, const std::vector<std::string>& leading,
                   const std::vector<std::string>& extra_headers,
                   const std::function<std::vector<std::string>(const nlohmann::json&)>& extra) {
  std::vector<std::string> columns = leading;
  columns.insert(columns.end(), {"H2D", "D2H", "D2D", "total copies", "total MB"});
  bool memory = false;
  for (const auto& r : rows)
    memory = memory || r["evictions"].get<std::uint64_t>() > 0 ||
             r["device_memory_limit_bytes"].get<std::uint64_t>() > 0;
  if (memory)
    columns.insert(columns.end(), {"evictions", "write-backs", "peak device MB", "limit MB"});
  columns.insert(columns.end(), extra_headers.begin(), extra_headers.end());
  Table copies(columns);
  for (const auto& r : rows) {
    std::vector<std::string> row;
    for (const auto& key : leading) row.push_back(r[key].get<std::string>());
    row.insert(row.end(),
               {count(r["h2d_copies"]), count(r["d2h_copies"]), count(r["d2d_copies"]),
                count(r["total_copies"]), fixed(r["total_bytes"].get<double>() / 1e6, 1)});
    if (memory) {
      auto limit = r["device_memory_limit_bytes"].get<std::uint64_t>();
      row.insert(row.end(), {count(r["evictions"]), count(r["write_backs"]),
                             fixed(r["peak_device_bytes"].get<double>() / 1e6, 1),
                             limit ? fixed(static_cast<double>(limit) / 1e6, 1) : "device"});
    }
    if (extra) {
      auto cells = extra(r);
      row.insert(row.end(), cells.begin(), cells.end());
    }
    copies.add_row(row);
  }
  return copies;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  return fmt::format("{}", fmt::join(items, sep));
}

std::string workers_label(const RuntimeOptions& o) {
  if (!o.platform.empty()) {
    if (o.platform_devices == RuntimeOptions::kPlatformHostOnly) return "cpu";
    return fmt::format("{}{} sim GPU{}", o.cpus != 0 ? "cpu+" : "", o.platform_devices,
                       o.platform_devices == 1 ? "" : "s");
  }
  std::string label = o.cpus != 0 ? "cpu" : "";
  for (const std::string& d : o.devices) label += (label.empty() ? "" : "+") + d;
  return label;
}

void write_csv(std::ostream& out, const nlohmann::json& rows) {
  std::vector<std::string> columns;
  for (const auto& row : rows)
    for (const auto& [key, value] : row.items())
      if (!value.is_structured() && std::find(columns.begin(), columns.end(), key) == columns.end())
        columns.push_back(key);
  auto cell = [](const nlohmann::json& v) -> std::string {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string quoted = "\"";
      for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return quoted + "\"";
    }
    return v.is_null() ? std::string() : v.dump();
  };
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
  out << '\n';
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c)
      out << (c ? "," : "") << (row.contains(columns[c]) ? cell(row[columns[c]]) : "");
    out << '\n';
  }
}

void emit(const Report& report, const OutputOptions& options,
          const std::function<void(std::ostream&)>& print_table) {
  nlohmann::json doc = report.to_json();
  if (!options.json_out.empty())
    write_file_whole(options.json_out, doc.dump(2) + "\n", "the result");
  if (options.json) {
    std::cout << doc.dump(2) << '\n';
  } else if (options.csv) {
    write_csv(std::cout, report.results());
  } else {
    print_table(std::cout);
    for (const auto& note : report.notes()) std::cout << "note: " << note << '\n';
  }
  std::cout.flush();
}

}  // namespace conveyor::cli
