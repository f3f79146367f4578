// conveyor probe: offload cost per device and memory model (seed 004): bandwidth versus size,
// dispatch Td, attach Tm, the model T = Td + Tm + bytes(r+w) / BW as the seed's table 3, the
// application pair with its crossover, and the calibration file later parts read.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "conveyor/calibration.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/probe.hpp"
#include "conveyor/units.hpp"
#include "progress_line.hpp"

namespace conveyor::cli {
namespace {

using nlohmann::json;

struct ProbeCliOptions {
  ProbeRequest request;
  bool show_calibration = false;
  OutputOptions output;
};

/// Three significant digits, without exponent for the ranges the probe sees.
std::string sig(double v) {
  double a = std::fabs(v);
  if (a == 0) return "0";
  int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4;
  return fixed(v, decimals);
}

std::string column(const json& row) {
  return fmt::format("{} {}", row["device"].get<std::string>(), row["model"].get<std::string>());
}

void print_table3(std::ostream& out, const json& rows) {
  std::vector<const json*> models;
  std::map<std::string, const json*> dispatch;
  for (const auto& r : rows) {
    if (r["kind"] == "model") models.push_back(&r);
    if (r["kind"] == "dispatch") dispatch[r["device"]] = &r;
  }
  if (models.empty()) return;
  out << "Offload cost (seed 004, table 3): T = Td + Tm + bytes(read + write) / BW\n";
  std::vector<std::string> headers = {""};
  for (auto* m : models) headers.push_back(column(*m));
  Table table(headers);
  auto row = [&](std::string name, auto value) {
    std::vector<std::string> cells = {std::move(name)};
    for (auto* m : models) cells.push_back(value(*m));
    table.add_row(cells);
  };
  row("Td (us)", [](const json& m) { return sig(m["td_us"]); });
  row("Tm (us)", [](const json& m) { return sig(m["tm_us"]); });
  row("BW (GB/s)", [](const json& m) { return sig(m["bw_gbs"]); });
  row("fit rms (us)", [](const json& m) { return sig(m["rms_residual_us"]); });
  row("enqueue (us)", [&](const json& m) {
    auto it = dispatch.find(m["device"]);
    return it == dispatch.end() ? std::string("-") : sig((*it->second)["enqueue_us"]);
  });
  table.print(out);
  out << "Td: empty kernel, launch + wait (best of several windows). Tm: attach fit intercept - "
         "Td.\n"
         "BW: bytes read + written by the memory task at the largest sizes / its time.\n\n";
}

void print_bandwidth(std::ostream& out, const json& rows) {
  std::vector<std::uint64_t> sizes;
  std::vector<std::string> order;
  std::map<std::string, std::map<std::uint64_t, double>> lines;
  for (const auto& r : rows) {
    if (r["kind"] != "bandwidth") continue;
    std::string key = fmt::format("{} {} {}", r["device"].get<std::string>(),
                                  r["model"].get<std::string>(), r["direction"].get<std::string>());
    if (!lines.count(key)) order.push_back(key);
    std::uint64_t bytes = r["bytes"];
    lines[key][bytes] = r["best_gbs"];
    if (std::find(sizes.begin(), sizes.end(), bytes) == sizes.end()) sizes.push_back(bytes);
  }
  if (order.empty()) return;
  std::sort(sizes.begin(), sizes.end());
  out << "Bandwidth vs size, best GB/s (transfers: bytes copied; task: bytes read + written)\n";
  std::vector<std::string> headers = {"device model direction"};
  for (auto s : sizes) headers.push_back(format_bytes(s));
  Table table(headers);
  for (const auto& key : order) {
    std::vector<std::string> cells = {key};
    for (auto s : sizes) cells.push_back(lines[key].count(s) ? sig(lines[key][s]) : "-");
    table.add_row(cells);
  }
  table.print(out);
  out << '\n';
}

void print_apps(std::ostream& out, const json& rows) {
  for (const char* app : {"matmul", "md5"}) {
    std::vector<std::string> devices;
    std::vector<std::uint64_t> sizes;
    std::map<std::pair<std::string, std::uint64_t>, const json*> cell;
    for (const auto& r : rows) {
      if (r["kind"] != "app" || r["app"] != app) continue;
      std::string d = r["device"];
      std::uint64_t s = r["size"];
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
      if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) sizes.push_back(s);
      cell[{d, s}] = &r;
    }
    if (devices.empty()) continue;
    bool is_matmul = std::string(app) == "matmul";
    out << (is_matmul ? "Matrix product C = A B (single precision, n x n), best time in ms\n"
                      : "MD5 of 64-byte messages, best time in ms\n");
    std::vector<std::string> headers = {is_matmul ? "n" : "bytes"};
    for (const auto& d : devices) {
      headers.push_back(d + " ms");
      if (d != "cpu") headers.push_back(d + " x cpu");
    }
    Table table(headers);
    for (auto s : sizes) {
      std::vector<std::string> cells = {is_matmul ? std::to_string(s) : format_bytes(s)};
      for (const auto& d : devices) {
        auto it = cell.find({d, s});
        cells.push_back(it == cell.end() ? "-" : sig((*it->second)["time_s"].get<double>() * 1e3));
        if (d == "cpu") continue;
        std::string speed = "-";
        if (it != cell.end() && !(*it->second)["speedup_vs_cpu"].is_null())
          speed = sig((*it->second)["speedup_vs_cpu"]) +
                  ((*it->second)["valid"].get<bool>() ? "" : " WRONG");
        cells.push_back(speed);
      }
      table.add_row(cells);
    }
    table.print(out);
    for (const auto& r : rows)
      if (r["kind"] == "crossover" && r["app"] == app) {
        std::string d = r["device"];
        if (r["size"].is_null())
          out << fmt::format("{}: {} is never faster than the CPU in this range\n", app, d);
        else
          out << fmt::format("{}: offloading to {} pays from {} on\n", app, d,
                             is_matmul ? "n = " + std::to_string(r["size"].get<std::uint64_t>())
                                       : format_bytes(r["size"].get<std::uint64_t>()));
      }
    out << '\n';
  }
}

// What --strategy auto of the staged pipeline predicts from: the plain kernels per thread count,
// and the movers.
void print_staging(std::ostream& out, const json& rows) {
  std::vector<int> threads;
  std::map<int, std::map<std::string, double>> plain;
  for (const auto& r : rows)
    if (r["kind"] == "plain_stream") {
      int t = r["threads"];
      if (!plain.count(t)) threads.push_back(t);
      plain[t][r["kernel"].get<std::string>()] = r["best_gbs"];
    }
  if (threads.empty()) return;
  out << "Staged pipeline inputs (seed 000; read by stream --pipeline --strategy auto)\n"
         "Plain STREAM kernels (tuned, non-temporal stores), best GB/s\n";
  Table table({"threads", "copy", "scale", "add", "triad", "dot"});
  for (int t : threads) {
    std::vector<std::string> cells = {std::to_string(t)};
    for (const char* k : {"copy", "scale", "add", "triad", "dot"})
      cells.push_back(plain[t].count(k) ? sig(plain[t][k]) : "-");
    table.add_row(cells);
  }
  table.print(out);
  Table movers({"mover", "copy GB/s", "per block us", "uses a CPU"});
  for (const auto& r : rows) {
    if (r["kind"] == "near_read")
      out << fmt::format("Reading a block already in the cache, one thread: {} GB/s\n",
                         sig(r["best_gbs"]));
    if (r["kind"] == "mover")
      movers.add_row({r["mover"].get<std::string>(), sig(r["copy_gbs"]),
                      sig(r["block_overhead_us"]), r["uses_cpu"].get<bool>() ? "yes" : "no"});
  }
  movers.print(out);
  out << "Mover: copy-only runs of one lane, 64 KiB and 1 MiB blocks; the difference gives the "
         "per-block cost.\n\n";
}

// The calibration's entries as CSV rows: one per device and model.
void write_calibration_csv(const Calibration& cal) {
  json rows = json::array();
  for (const auto& e : cal.entries) {
    json row = {{"device", e.device},
                {"model", to_string(e.model)},
                {"td_us", e.td_us},
                {"tm_us", e.tm_us},
                {"bw_gbs", e.bw_gbs},
                {"enqueue_us", e.enqueue_us},
                {"rms_residual_us", e.rms_residual_us}};
    for (const auto& [direction, link] : e.links) row[direction + "_gbs"] = link.bw_gbs;
    rows.push_back(row);
  }
  write_csv(std::cout, rows);
}

// The measured staging rates (stream --pipeline --strategy auto), on one line.
void print_staging(const Calibration& cal) {
  if (!cal.staging) {
    std::cout << "staging: none measured (stream --pipeline --strategy auto times itself)\n";
    return;
  }
  const StagingCalibration& st = *cal.staging;
  std::string triad;
  for (const auto& p : st.plain)
    if (p.kernel == "triad")
      triad += fmt::format("{}{} GB/s ({} thread{})", triad.empty() ? "" : ", ", sig(p.best_gbs),
                           p.threads, p.threads == 1 ? "" : "s");
  std::cout << fmt::format("staging: plain triad {}; near read {} GB/s", triad,
                           sig(st.near_read_gbs));
  for (const auto& m : st.movers)
    std::cout << fmt::format("; {} mover {} GB/s + {} us per block", m.mover, sig(m.copy_gbs),
                             sig(m.block_overhead_us));
  std::cout << '\n';
}

void show_calibration(const ProbeCliOptions& options) {
  std::filesystem::path path = options.request.calibration.empty()
                                   ? default_calibration_path()
                                   : std::filesystem::path(options.request.calibration);
  Calibration cal = Calibration::load(path);
  if (options.output.json) {
    std::cout << cal.to_json().dump(2) << '\n';
    return;
  }
  if (options.output.csv) return write_calibration_csv(cal);
  std::cout << fmt::format("Calibration {} (schema {}), measured {} on {} ({})\n", path.string(),
                           cal.schema, cal.date, cal.machine.hostname, cal.machine.cpu_model);
  Table table({"device", "model", "Td us", "Tm us", "BW GB/s", "h2d GB/s", "d2h GB/s", "d2d GB/s"});
  for (const auto& e : cal.entries) {
    auto link = [&](const char* d) {
      auto it = e.links.find(d);
      return it == e.links.end() ? std::string("-") : sig(it->second.bw_gbs);
    };
    table.add_row({e.device, std::string(to_string(e.model)), sig(e.td_us), sig(e.tm_us),
                   sig(e.bw_gbs), link("h2d"), link("d2h"), link("d2d")});
  }
  table.print(std::cout);
  // Application crossovers belong to the device: print them once per device.
  std::vector<std::string> seen;
  for (const auto& e : cal.entries) {
    if (e.device == "cpu" || std::find(seen.begin(), seen.end(), e.device) != seen.end()) continue;
    seen.push_back(e.device);
    for (const auto& [app, a] : e.apps)
      std::cout << fmt::format("{} on {}: {}\n", app, e.device,
                               a.crossover ? fmt::format("pays from size {}", *a.crossover)
                                           : std::string("never faster than the CPU in range"));
  }
  print_staging(cal);
}

void run(const ProbeCliOptions& options) {
  if (options.show_calibration) return show_calibration(options);
  ProbePlan plan = plan_probe(options.request);
  ProbeResults results;
  {
    ProgressLine progress("probe", options.output.quiet);
    if (progress.shown())
      plan.options.progress = [&progress](std::string_view phase) { progress.show("", {phase}); };
    results = run_probe(plan.devices, plan.options);
  }

  Report report("probe", probe_options_record(options.request, plan));
  for (auto& row : probe_rows(results)) report.add_result(std::move(row));
  for (const auto& note : results.notes) report.add_note(note);

  std::filesystem::path written = save_probe_calibration(plan, results);
  if (!written.empty()) {
    report.section("calibration") = written.string();
    report.add_note("calibration written to " + written.string());
  } else {
    report.section("calibration") = nullptr;
  }
  emit(report, options.output, [&](std::ostream& out) {
    const json& rows = report.results();
    print_table3(out, rows);
    print_bandwidth(out, rows);
    print_apps(out, rows);
    print_staging(out, rows);
  });
  check_probe_results(results);
}

}  // namespace

// What `conveyor probe --help` says after the options.
constexpr const char* kProbeFooter =
    "What it measures, per device and memory model (cpu: host; OpenCL: pageable, pinned, "
    "mapped,\nsvm; CUDA: pageable, pinned, mapped):\n"
    "  bandwidth  h2d / d2h / d2d copies and the memory task over 4 KiB..--max-size by 4x\n"
    "  Td         empty kernel: launch + wait (dispatch round trip); enqueue = host cost only\n"
    "  Tm         memory tasks over 256 B..64 KiB, line fit, intercept minus Td\n"
    "  BW         bytes read + written by the memory task at the largest sizes / its time\n"
    "  staging    the CPU's plain STREAM kernels per thread count and the host movers' copy\n"
    "             rate and per-block cost (read by stream --pipeline --strategy auto)\n"
    "  apps       matmul (n = 16..1024) and MD5 of 64-byte messages (4 KiB..16 MiB) on the CPU\n"
    "             and each device, checked against the CPU, and the size from which the device "
    "wins\n"
    "Rates are SI: 1 GB/s = 1e9 B/s. See docs/probe.md.\n\n"
    "Examples:\n"
    "  conveyor probe                              every device, table 3, calibration saved\n"
    "  conveyor probe --device cpu --quick         a first look in a few seconds\n"
    "  conveyor probe --device opencl:0 --no-apps --json-out probe.json\n"
    "  conveyor plot probe.json -o probe.png       draw it\n"
    "  conveyor probe --show-calibration           what the scheduler will read";

void add_probe_command(CLI::App& app) {
  auto options = std::make_shared<ProbeCliOptions>();
  CLI::App* command = app.add_subcommand(
      "probe",
      "Offload cost per device and memory model (seed 004): bandwidth vs size, dispatch Td, attach "
      "Tm, BW, the matmul/md5 crossover; writes the calibration file");
  command
      ->add_option("--device", options->request.device,
                   "cpu, opencl:N, cuda:N, a comma-separated list, or all")
      ->capture_default_str();
  command
      ->add_option("--repeats", options->request.repeats,
                   "Timed repetitions per point (best, median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_flag("--quick", options->request.quick,
                    "Short sweeps: sizes to 1 MiB, matmul n <= 128, md5 <= 256 KiB, <= 3 repeats");
  command
      ->add_option("--max-size", options->request.max_size,
                   "Largest transfer and task size (also bounded by each device)")
      ->capture_default_str()
      ->option_text("SIZE");
  command->add_flag("--apps,!--no-apps", options->request.apps,
                    "Run (or skip) the application pair, matmul and md5 (default: run)");
  command
      ->add_option("--calibration", options->request.calibration,
                   "Calibration file to write (or show) instead of the default "
                   "$XDG_CACHE_HOME/conveyor/calibration.json (~/.cache/...)")
      ->option_text("FILE");
  command->add_flag("--staging,!--no-staging", options->request.staging,
                    "With the CPU, not --quick: measure what the staged pipeline's --strategy "
                    "auto predicts from: plain kernels per thread count, the movers (default: "
                    "measure; a few seconds)");
  command->add_flag("--no-calibration", options->request.no_calibration,
                    "Do not write a calibration file");
  command->add_flag("--show-calibration", options->show_calibration,
                    "Print the saved calibration (checked against this machine) and exit");
  add_output_options(*command, options->output);
  add_quiet_option(*command, options->output);
  command->footer(kProbeFooter);
  command->callback([options] { run(*options); });
}

}  // namespace conveyor::cli
