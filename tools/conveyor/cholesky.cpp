// conveyor cholesky: tiled block Cholesky on the task runtime (seed 003's evaluation), with its
// GFLOP/s and the host/device copies the runtime made (the seed's tables 3 and 5).
#include "cholesky/cholesky.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cholesky/matrix.hpp"
#include "cholesky/run.hpp"
#include "cholesky_distributed.hpp"
#include "commands.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "platform_workers.hpp"

namespace conveyor::cli {
namespace {

namespace ch = conveyor::apps::cholesky;

struct CholeskyCliOptions {
  int n = 8192;
  int block = 0;  // not given: chosen from n and the workers (apps/common/block_size.hpp)
  bool block_given = false;
  std::vector<std::string> precisions{"d"};
  std::vector<std::string> devices{"cpu"};
  bool devices_given = false;        // with --platform: pick its workers (platform_workers.hpp)
  std::vector<std::string> offload;  // empty: gemm when the offload scheduler is asked for
  std::vector<std::string> coherences{"coherent"};
  std::vector<std::string> prefetch{"on"};  // RuntimeOptions::prefetch; "on,off" runs both
  std::string sched;  // empty: model when a device is listed (offload with --offload), else eager
  bool calibrate = false;
  std::string models;  // performance models file (empty: next to the calibration)
  int cpus = -1;
  int repeat = 1;
  bool no_warmup = false;
  bool no_pin = false;
  bool check = false;
  std::string trace;
  std::string device_memory;  // empty: the devices' own memory
  std::string platform;       // a simulated platform file
  std::vector<int> gpus;      // device counts to simulate (empty: 1, 2, 4, ...)
  std::vector<std::string> device_copies{"host-staged"};
  bool sim_run_kernels = false;
  std::string grid;  // PxQ: distributed over MPI ranks
  OutputOptions output;
};

// "cpu" in --devices means CPU workers and "all" the CPUs and every device; the runtime expands
// the rest (its "all" is every device).
struct Workers {
  bool with_cpu = false;
  std::vector<std::string> devices;
  int platform_devices = 0;  // picked by --devices on --platform: RuntimeOptions::platform_devices
};
Workers workers_of(const CholeskyCliOptions& o) {
  Workers w;
  if (!o.platform.empty() && o.devices_given) {
    if (!o.gpus.empty()) throw UsageError("cholesky: give --devices or --gpus, not both");
    const PlatformPick pick = pick_platform_workers(o.platform, o.devices);
    w.with_cpu = pick.with_cpu;
    w.platform_devices = pick.devices;
  }
  std::vector<std::string> device_ids;
  for (const auto& d : w.platform_devices ? std::vector<std::string>{} : o.devices) {
    if (d == "cpu" || d == "cpu:0" || d == "all") w.with_cpu = true;
    if (d != "cpu" && d != "cpu:0") device_ids.push_back(d);
  }
  w.devices = expand_devices(device_ids);
  if (!w.with_cpu && o.cpus > 0) throw UsageError("cholesky: --cpus needs cpu in --devices");
  if (o.cpus == 0)
    throw UsageError("cholesky: --cpus must be positive (leave cpu out of --devices for none)");
  if (o.cpus < -1) throw UsageError("cholesky: --cpus must be positive");
  if (!o.platform.empty() && !w.devices.empty())
    throw UsageError("cholesky: --platform brings its own devices; give --devices cpu or nothing");
  return w;
}

// The simulated GPU counts to run: --gpus, else 1, 2, 4, ... up to the platform's devices; {0}
// (no simulated devices) without --platform.
std::vector<int> gpu_counts_of(const CholeskyCliOptions& o) {
  if (o.platform.empty()) {
    if (!o.gpus.empty() || o.sim_run_kernels)
      throw UsageError("cholesky: --gpus and --sim-run-kernels need --platform");
    return {0};
  }
  std::vector<int> counts = o.gpus;
  if (counts.empty()) {
    int have = static_cast<int>(platform_device_count(o.platform));
    if (have == 0) return {0};  // a node of CPUs only
    for (int g = 1; g <= have; g *= 2) counts.push_back(g);
    if (counts.back() != have) counts.push_back(have);
  }
  for (int g : counts)
    if (g <= 0) throw UsageError("cholesky: --gpus counts must be positive");
  return counts;
}

// The codelets the devices run, and the scheduler the runtime will choose (unless --sched names
// one). The seed's placement, gemm on the devices, is this app's default for the seed's
// schedulers (offload, round-robin, locality) and on a simulated platform (table 5's layout, so
// the runtime chooses offload there); the model schedulers place every codelet.
std::pair<std::vector<std::string>, std::string> placement_of(const CholeskyCliOptions& o,
                                                              const Workers& w) {
  const bool simulate = !o.platform.empty();
  std::vector<std::string> offload = o.offload;
  const bool seed_scheduler =
      o.sched.empty() ? simulate && !w.platform_devices : o.sched.rfind("model", 0) != 0;
  if (offload.empty() && seed_scheduler) offload = {"gemm"};
  RuntimeOptions chosen;
  chosen.scheduler = o.sched.empty() ? "auto" : o.sched;
  chosen.devices = w.devices;
  chosen.platform = w.platform_devices == RuntimeOptions::kPlatformHostOnly ? "" : o.platform;
  chosen.offload = w.devices.empty() && !simulate ? std::vector<std::string>{} : offload;
  std::string sched = resolved_scheduler(chosen);
  if (offload.empty() && sched.rfind("model", 0) != 0) offload = {"gemm"};
  if ((o.calibrate || !o.models.empty()) && sched.rfind("model", 0) != 0)
    throw UsageError("cholesky: --calibrate and --models apply to --sched model or model-ready");
  return {std::move(offload), std::move(sched)};
}

std::vector<ch::RunConfig> configurations(const CholeskyCliOptions& o) {
  if (o.block_given && o.block <= 0)
    throw UsageError("cholesky: --block must be positive (got " + std::to_string(o.block) + ")");
  const Workers workers = workers_of(o);
  const std::vector<std::string>& devices = workers.devices;
  const bool with_cpu = workers.with_cpu;
  const bool simulate = !o.platform.empty();
  const std::vector<int> gpu_counts =
      workers.platform_devices ? std::vector<int>{workers.platform_devices} : gpu_counts_of(o);
  const auto [offload, sched] = placement_of(o, workers);
  std::uint64_t device_memory = 0;
  if (!o.device_memory.empty()) {
    device_memory = parse_bytes(o.device_memory, "--device-memory");
    if (device_memory == 0) throw UsageError("cholesky: --device-memory must be positive");
    if (devices.empty() && !simulate)
      throw UsageError("cholesky: --device-memory needs a device in --devices");
  }
  std::vector<ch::RunConfig> configs;
  for (const auto& p : o.precisions)
    for (const auto& coh : o.coherences)
      for (const auto& copy : o.device_copies)
        for (int gpus : gpu_counts) {
          ch::RunConfig c;
          c.runtime.platform = o.platform;
          c.runtime.platform_devices = gpus;
          c.runtime.platform_run_kernels = o.sim_run_kernels;
          c.runtime.device_copy = parse_device_copy(copy);
          c.n = o.n;
          c.block = o.block;
          c.precision = ch::parse_precision(p);
          c.runtime.cpus = with_cpu ? o.cpus : 0;
          c.runtime.pin = !o.no_pin;
          c.runtime.devices = devices;
          c.runtime.scheduler = sched;
          c.runtime.offload = devices.empty() && !simulate ? std::vector<std::string>{} : offload;
          c.runtime.calibrate = o.calibrate;
          c.runtime.perf_models = o.models;  // the runtime keeps simulated times out of them
          c.runtime.coherence = parse_coherence(coh);
          c.runtime.device_memory_limit = device_memory;
          c.repeat = o.repeat;
          c.warmup = !o.no_warmup;
          c.check = o.check;
          c.trace = o.trace;
          configs.push_back(std::move(c));
        }
  // --prefetch on,off: each configuration once per value, side by side.
  for (const auto& pf : o.prefetch)
    if (pf != "on" && pf != "off")
      throw UsageError(fmt::format("cholesky: --prefetch takes on or off, got '{}'", pf));
  std::vector<ch::RunConfig> expanded;
  for (const auto& c : configs)
    for (const auto& pf : o.prefetch) {
      expanded.push_back(c);
      expanded.back().runtime.prefetch = pf == "on";
    }
  configs = std::move(expanded);
  if (!o.trace.empty() && configs.size() > 1)
    throw UsageError(
        "cholesky: --trace needs a single configuration (one precision, one coherence, one "
        "device copy, one GPU count)");
  return configs;
}

nlohmann::json result_row(const ch::RunConfig& c, const ch::RunResult& r) {
  const RuntimeStats& s = r.best.stats;
  nlohmann::json workers = nlohmann::json::array();
  int cpu_workers = 0;
  for (const auto& w : s.workers) {
    workers.push_back({{"name", w.name},
                       {"tasks", w.tasks},
                       {"busy_s", w.busy_seconds},
                       {"predicted_busy_s", w.predicted_seconds}});
    cpu_workers += w.name.rfind("cpu", 0) == 0;
  }
  nlohmann::json row = {
      {"n", c.n},
      {"block", r.block},
      {"tiles", r.best.tiles},
      {"precision", ch::to_string(c.precision)},
      {"devices", workers_label(c.runtime)},
      {"coherence", to_string(c.runtime.coherence)},
      {"scheduler", s.scheduler.empty() ? c.runtime.scheduler : s.scheduler},
      {"calibration_tasks", s.calibration_tasks},
      {"offload", join(c.runtime.offload, ",")},
      {"cpu_workers", cpu_workers},
      {"gflops", r.gflops},
      {"time_s", r.best.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", c.repeat},
      {"tasks", r.best.total_tasks()},
      {"gemm_tasks", r.best.gemm_tasks},
      {"device_memory_limit_bytes", c.runtime.device_memory_limit},
      {"prefetch", c.runtime.prefetch},
      {"prefetches", s.prefetches},
      {"prefetch_bytes", s.prefetch_bytes},
      {"prefetches_used", s.prefetches_used},
      {"prefetches_dropped", s.prefetches_dropped},
      {"device_copy", to_string(c.runtime.device_copy)},
      {"platform",
       c.runtime.platform.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.runtime.platform)},
      {"gpus", std::max(c.runtime.platform_devices, 0)},  // kPlatformHostOnly: none
      {"simulated", !c.runtime.platform.empty()},
      {"residual", r.checked ? nlohmann::json(r.residual) : nlohmann::json(nullptr)},
      {"residual_bound", r.residual_bound},
      {"check", r.checked ? (r.passed() ? "passed" : "failed") : "not run"},
      {"cpu_kernels", r.cpu_kernels},
      {"workers", workers},
  };
  row.update(copy_fields(s));
  return row;
}

std::string sci(double v) { return fmt::format("{:.2e}", v); }

// Seed 003 table 5 (method 2 = peer-copy, round-robin gemm, V100 node, 32 x 32 tiles): H2D, D2H,
// D2D for 1, 2 and 4 GPUs.
constexpr std::uint64_t kSeedTable5[3][3] = {{960, 1451, 2418}, {465, 465, 465}, {0, 2248, 3372}};

// The seed's table 5 layout: one column per GPU count, for each precision / coherence / device
// copy; the seed's counts beside ours where the configuration is the seed's.
void print_table5(std::ostream& out, const nlohmann::json& rows) {
  std::vector<std::string> groups;
  for (const auto& r : rows) {
    std::string g =
        fmt::format("{} precision, {}, {}", r["precision"].get<std::string>(),
                    r["coherence"].get<std::string>(), r["device_copy"].get<std::string>());
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  for (const auto& g : groups) {
    std::vector<const nlohmann::json*> cols;
    for (const auto& r : rows)
      if (fmt::format("{} precision, {}, {}", r["precision"].get<std::string>(),
                      r["coherence"].get<std::string>(), r["device_copy"].get<std::string>()) == g)
        cols.push_back(&r);
    const auto& first = *cols.front();
    bool seed = first["tiles"] == 32 && first["device_copy"] == "peer-copy" &&
                first["coherence"] == "coherent" && first["offload"] == "gemm" &&
                first["scheduler"] == "round-robin";
    out << fmt::format("\nSimulated on {} ({}, scheduler {}): seed 003 table 5 layout{}\n",
                       first["platform"].get<std::string>(), g,
                       first["scheduler"].get<std::string>(), seed ? "; [seed's V100 counts]" : "");
    std::vector<std::string> header{"memcpy type"};
    for (const auto* c : cols) header.push_back(fmt::format("{} GPU", (*c)["gpus"].get<int>()));
    Table t(header);
    const char* names[] = {"Host to Device", "Device to Host", "Device to Device", "Total"};
    const char* keys[] = {"h2d_copies", "d2h_copies", "d2d_copies", "total_copies"};
    for (int k = 0; k < 4; ++k) {
      std::vector<std::string> row{names[k]};
      for (const auto* c : cols) {
        std::uint64_t v = (*c)[keys[k]].get<std::uint64_t>();
        std::string cell = std::to_string(v);
        int gi = (*c)["gpus"] == 1 ? 0 : (*c)["gpus"] == 2 ? 1 : (*c)["gpus"] == 4 ? 2 : -1;
        if (seed && gi >= 0) {
          std::uint64_t s = k < 3 ? kSeedTable5[k][gi]
                                  : kSeedTable5[0][gi] + kSeedTable5[1][gi] + kSeedTable5[2][gi];
          cell += fmt::format(" [{}]", s);
        }
        row.push_back(cell);
      }
      t.add_row(row);
    }
    std::vector<std::string> time_row{"simulated time s"}, gf_row{"GFLOP/s"};
    for (const auto* c : cols) {
      time_row.push_back(fixed((*c)["time_s"], 3));
      gf_row.push_back(fixed((*c)["gflops"], 1));
    }
    t.add_row(time_row);
    t.add_row(gf_row);
    t.print(out);
  }
}

void print_tables(std::ostream& out, const Report& report) {
  const auto& rows = report.results();
  if (rows.empty()) return;
  const auto& first = rows.front();
  auto counts = ch::task_counts(first["tiles"].get<int>());
  out << fmt::format(
      "Cholesky n = {}, block = {}: {} tiles per side, {} tasks ({} potrf, {} trsm, {} syrk, {} "
      "gemm), n^3/3 = {:.3g} flop\nCPU kernels: {}\n\n",
      first["n"].get<int>(), first["block"].get<int>(), first["tiles"].get<int>(),
      counts.potrf + counts.trsm + counts.syrk + counts.gemm, counts.potrf, counts.trsm,
      counts.syrk, counts.gemm, ch::cholesky_flops(first["n"].get<int>()),
      first["cpu_kernels"].get<std::string>());

  // A prefetch column only when the runs differ in it (--prefetch on,off).
  bool both = false;
  for (const auto& r : rows) both = both || r["prefetch"] != first["prefetch"];
  std::vector<std::string> perf_columns{"precision", "devices", "coherence", "device copy",
                                        "scheduler"};
  if (both) perf_columns.push_back("prefetch");
  perf_columns.insert(
      perf_columns.end(),
      {first["simulated"].get<bool>() ? "simulated s" : "time s", "GFLOP/s", "residual", "check"});
  Table perf(perf_columns);
  for (const auto& r : rows) {
    std::vector<std::string> row{r["precision"], r["devices"], r["coherence"], r["device_copy"],
                                 r["scheduler"]};
    if (both) row.push_back(r["prefetch"].get<bool>() ? "on" : "off");
    row.insert(row.end(), {fixed(r["time_s"], 3), fixed(r["gflops"], 2),
                           r["residual"].is_null() ? "-" : sci(r["residual"]), r["check"]});
    perf.add_row(row);
  }
  perf.print(out);

  // The seed's table 3 (one device) and table 5 (several): copies by direction; with a device
  // memory smaller than the matrix, the evictions and write-backs (which are D2H copies too).
  out << "\nCopies between host and devices (seed 003 tables 3/5; MB = 1e6 bytes)\n";
  bool prefetched = false;
  for (const auto& r : rows) prefetched = prefetched || r["prefetches"].get<std::uint64_t>() > 0;
  std::vector<std::string> prefetch_headers;
  if (prefetched) prefetch_headers = {"prefetch", "prefetches", "used", "dropped"};
  Table copies =
      copies_table(rows, {"precision", "devices", "coherence"}, prefetch_headers,
                   [&](const nlohmann::json& r) -> std::vector<std::string> {
                     if (!prefetched) return {};
                     return {r["prefetch"].get<bool>() ? "on" : "off", count(r["prefetches"]),
                             count(r["prefetches_used"]), count(r["prefetches_dropped"])};
                   });
  copies.print(out);

  if (first["simulated"].get<bool>()) print_table5(out, rows);

  out << "\nTasks per worker (fastest run; predicted = the models' execution time of its tasks)\n";
  Table workers(
      {"precision", "coherence", "scheduler", "worker", "tasks", "busy s", "predicted s"});
  for (const auto& r : rows)
    for (const auto& w : r["workers"]) {
      // A simulated host has many cores: list only the workers that ran something.
      if (r["simulated"].get<bool>() && w["tasks"].get<std::uint64_t>() == 0) continue;
      bool modelled = r["scheduler"].get<std::string>().rfind("model", 0) == 0;
      workers.add_row({r["precision"], r["coherence"], r["scheduler"], w["name"],
                       std::to_string(w["tasks"].get<std::uint64_t>()),
                       fixed(w["busy_s"].get<double>(), 3),
                       modelled ? fixed(w["predicted_busy_s"].get<double>(), 3) : "-"});
    }
  workers.print(out);
  for (const auto& r : rows)
    if (r["calibration_tasks"].get<std::uint64_t>() > 0)
      out << fmt::format(
          "Calibrating ({} precision, {}): {} tasks were placed to measure performance models, "
          "not where they were predicted to finish first (conveyor models lists them)\n",
          r["precision"].get<std::string>(), r["coherence"].get<std::string>(),
          r["calibration_tasks"].get<std::uint64_t>());
}

// A cluster file in --platform: the configuration is the node's, run on every rank of the
// simulated cluster (one configuration; all of the node's devices unless --gpus says fewer).
void run_cluster(CholeskyCliOptions o, const nlohmann::json& options) {
  const std::string cluster = o.platform;
  o.platform = cluster_node_file(cluster);
  o.devices_given = false;  // the nodes' devices: --gpus
  if (o.gpus.size() > 1) throw UsageError("cholesky: a simulated cluster takes one --gpus count");
  if (o.gpus.empty()) o.gpus = {static_cast<int>(platform_device_count(o.platform))};
  if (o.gpus.front() == 0) o.gpus.clear();  // a node of CPUs only: gpu_counts_of says {0}
  auto configs = configurations(o);
  if (configs.size() > 1)
    throw UsageError(
        "cholesky: a distributed run takes one configuration (one precision, one coherence)");
  run_simulated_cluster_cholesky({configs.front(), o.grid, o.output, options}, cluster);
}

void run_cholesky_command(const CholeskyCliOptions& o) {
  const bool cluster = !o.platform.empty() && is_cluster(o.platform);
  if (cluster && mpi_launched())
    throw UsageError("cholesky: a simulated cluster runs in one process: leave mpirun out");
  auto configs = cluster ? std::vector<ch::RunConfig>{} : configurations(o);
  // MPI is initialised only when asked for: --grid, or a launch by mpirun. Anything else runs
  // exactly as a build without MPI does.
  const bool distributed = !cluster && (!o.grid.empty() || mpi_launched());
  if (!distributed && !cluster)
    for (const auto& c : configs) ch::validate(c);  // every bad option before the first long run

  nlohmann::json options = {{"n", o.n},
                            {"block", o.block_given ? nlohmann::json(o.block) : "auto"},
                            {"precision", join(o.precisions, ",")},
                            {"devices", join(o.devices, ",")},
                            {"offload", join(o.offload, ",")},
                            {"coherence", join(o.coherences, ",")},
                            {"prefetch", join(o.prefetch, ",")},
                            {"scheduler", configs.empty() ? (o.sched.empty() ? "auto" : o.sched)
                                                          : configs.front().runtime.scheduler},
                            {"calibrate", o.calibrate},
                            {"cpus", o.cpus},
                            {"repeat", o.repeat},
                            {"check", o.check},
                            {"device_memory", o.device_memory},
                            {"platform", o.platform},
                            {"device_copy", join(o.device_copies, ",")},
                            {"sim_run_kernels", o.sim_run_kernels},
                            {"warmup", !o.no_warmup},
                            {"pin", !o.no_pin}};
  if (cluster) {
    run_cluster(o, options);
    return;
  }
  if (distributed) {
    if (!o.platform.empty())
      throw UsageError(
          "cholesky: --platform simulates one node; it does not combine with --grid or mpirun");
    if (configs.size() > 1)
      throw UsageError(
          "cholesky: a distributed run takes one configuration (one precision, one coherence)");
    run_distributed_cholesky({configs.front(), o.grid, o.output, options});
    return;
  }
  Report report("cholesky", options);
  std::vector<std::string> failures;
  for (const auto& c : configs) {
    ch::RunResult r = ch::run_cholesky(c);
    report.add_result(result_row(c, r));
    if (!r.passed())
      failures.push_back(
          fmt::format("{} precision on {} ({}): residual {:.3e} above the bound {:.3e}",
                      ch::to_string(c.precision), workers_label(c.runtime),
                      to_string(c.runtime.coherence), r.residual, r.residual_bound));
  }
  if (!o.block_given)
    report.add_note(fmt::format(
        "block {} chosen for n = {} and {} workers (at least 4 sqrt(workers) tiles per side, at "
        "most 1024, or 2048 without CPU workers; --block sets it)",
        report.results().front()["block"].get<int>(), o.n,
        report.results().front()["cpu_workers"].get<int>() +
            static_cast<int>(configs.front().runtime.devices.size())));
  report.add_note(
      "GFLOP/s = (n^3/3) / time / 1e9; time from the first submit to the end of "
      "wait_all (fastest of --repeat)");
  if (o.check)
    report.add_note(
        "residual = ||A - L L^T||_F / ||A||_F, accepted up to 8 sqrt(n) * unit roundoff");
  emit(report, o.output, [&](std::ostream& out) { print_tables(out, report); });
  if (!failures.empty()) throw ValidationError("cholesky: check failed: " + join(failures, "; "));
}

}  // namespace

void add_cholesky_command(CLI::App& app) {
  auto o = std::make_shared<CholeskyCliOptions>();
  CLI::App* command = app.add_subcommand(
      "cholesky",
      "Block Cholesky factorisation on the task runtime: GFLOP/s and the host/device copies it "
      "needed (seed 003)");
  command->add_option("--n", o->n, "Matrix order (default 8192)")->option_text("N");
  command
      ->add_option("--block", o->block,
                   "Tile size; the last tiles are narrower when it does not divide N (default: "
                   "from N and the workers, 1024 at most; see docs/cholesky.md)")
      ->option_text("B");
  command
      ->add_option("--precision", o->precisions,
                   "s (single) or d (double), or both as s,d: one result row each (default d)")
      ->delimiter(',')
      ->option_text("s|d[,..]");
  command
      ->add_option("--devices", o->devices,
                   "Workers: cpu (pinned CPU threads) and devices, e.g. cpu,opencl:0,cuda:0, or "
                   "all (default cpu; see conveyor devices)")
      ->delimiter(',')
      ->option_text("LIST");
  command
      ->add_option(
          "--offload", o->offload,
          "Codelets the offload scheduler puts on the devices: potrf, trsm, syrk, gemm; "
          "implies --sched offload (default: gemm, as in the seed, for every scheduler but "
          "model and model-ready)")
      ->delimiter(',')
      ->option_text("LIST");
  command
      ->add_option("--coherence", o->coherences,
                   "naive (copy in/out around every device task) or coherent (MSI, default); "
                   "naive,coherent runs both")
      ->delimiter(',')
      ->option_text("MODE[,..]");
  command
      ->add_option("--prefetch", o->prefetch,
                   "on (default): a task queued for a busy device has its tiles copied in while "
                   "the tasks ahead of it run (into free device memory only); off: at its launch; "
                   "on,off runs both")
      ->delimiter(',')
      ->option_text("on|off[,..]");
  command
      ->add_option("--sched", o->sched,
                   "model (earliest predicted finish from measured task times and copies), "
                   "model-ready (model, devices first run tasks whose data is in place), eager, "
                   "round-robin, offload, locality (default: model when a device is listed, "
                   "offload with --offload or --platform, else eager)")
      ->option_text("NAME");
  command->add_flag("--calibrate", o->calibrate,
                    "Model schedulers: measure every codelet on every worker kind at this tile "
                    "size before trusting the models (spreads tasks; the output says how many)");
  command
      ->add_option("--models", o->models,
                   "Model schedulers: performance models file (default perfmodels.json next to "
                   "the probe's calibration; none = keep them in memory)")
      ->option_text("FILE");
  command->add_option("--cpus", o->cpus, "CPU workers (default one per core)")->option_text("K");
  command
      ->add_option("--repeat", o->repeat,
                   "Factorisations timed; the fastest is reported (default 1)")
      ->option_text("R");
  command->add_flag("--no-pin", o->no_pin,
                    "CPU workers not pinned to cores: on a machine shared with other jobs the "
                    "system can move a worker off a busy core");
  command->add_flag("--no-warmup", o->no_warmup,
                    "Skip the small warm-up factorisation (which builds OpenCL programs first)");
  command->add_flag(
      "--check", o->check,
      "Check ||A - L L^T||_F / ||A||_F <= 8 sqrt(n) * unit roundoff; exit 1 when above");
  command
      ->add_option(
          "--device-copy", o->device_copies,
          "Device-to-device movement: host-staged (default), peer-copy (seed method 2), "
          "peer-direct (seed method 1: the task uses the peer's replica in place, over the "
          "link); a list runs each")
      ->delimiter(',')
      ->option_text("MODE[,..]");
  command
      ->add_option("--platform", o->platform,
                   "Run on a simulated platform (JSON, docs/simulation.md; shipped ones in "
                   "platforms/): the real runtime in virtual time, kernels not run. A cluster "
                   "file (platforms/cluster-*.json) with --grid PxQ runs every rank in this "
                   "process on modelled nodes and network (docs/simulated-clusters.md)")
      ->option_text("FILE");
  command
      ->add_option("--gpus", o->gpus,
                   "With --platform: device counts to simulate, e.g. 1,2,4 (default 1, 2, 4, ... "
                   "up to the platform's)")
      ->delimiter(',')
      ->option_text("LIST");
  command->add_flag("--sim-run-kernels", o->sim_run_kernels,
                    "With --platform: also run the CPU implementations and the copies (small n; "
                    "allows --check)");
  command
      ->add_option("--device-memory", o->device_memory,
                   "Memory each device may use for tiles, e.g. 8MiB (default: all of it). Device "
                   "memory is a cache of the host: a matrix larger than it still factorises "
                   "(least recently used tiles are evicted, modified ones written home first)")
      ->option_text("SIZE");
  command->add_option("--trace", o->trace, "Write a Chrome trace (conveyor plot FILE -o gantt.png)")
      ->option_text("FILE");
  command
      ->add_option("--grid", o->grid,
                   "Distribute over MPI ranks on a P x Q process grid, tiles 2D block-cyclic (run "
                   "under mpirun -np P*Q; default under mpirun: the most square grid)")
      ->option_text("PxQ");
  add_output_options(*command, o->output);
  command->footer(
      "Examples:\n"
      "  conveyor cholesky --n 4096 --block 256 --check             CPU workers only\n"
      "  conveyor cholesky --n 4096 --block 256 --devices all       CPUs + every device, model "
      "scheduler\n"
      "  conveyor models                                            what it measured\n"
      "  conveyor cholesky --n 8192 --precision s,d                 both precisions, side by side\n"
      "  conveyor cholesky --n 512 --block 16 --devices cpu,opencl:0 --offload gemm --coherence "
      "naive,coherent\n"
      "      gemm offloaded, 32 x 32 tiles: the seed's table 3 (1425 vs 19840 copies)\n"
      "  conveyor cholesky --devices cpu,cuda:0 --offload gemm --cpus 4 --trace t.json\n"
      "  conveyor cholesky --n 4096 --block 256 --devices cpu,opencl:0 --device-memory 8MiB "
      "--check\n"
      "      out of core: a 128 MiB matrix through 8 MiB of device memory\n"
      "  conveyor plot t.json -o gantt.png                           the timeline\n"
      "  conveyor cholesky --n 32768 --block 1024 --platform platforms/4xV100-pcie3.json \\\n"
      "      --offload gemm --sched round-robin --device-copy peer-copy\n"
      "      the seed's table 5 for 1, 2 and 4 simulated V100s\n"
      "  mpirun -np 4 conveyor cholesky --n 4096 --block 256 --grid 2x2 --check\n"
      "      4 ranks, tiles 2D block-cyclic, messages against the closed form\n"
      "  conveyor cholesky --n 65536 --block 1024 --platform platforms/cluster-64x4xV100.json \\\n"
      "      --grid 8x8 --sched model\n"
      "      64 simulated nodes of 4 V100s in one process (docs/simulated-clusters.md)\n"
      "The matrix is generated (symmetric, diagonally dominant, deterministic). GFLOP/s counts "
      "n^3/3\n"
      "flop (1 GFLOP/s = 1e9 flop/s); copies are tile copies between host and device memories.");
  command->callback([o, command] {
    o->block_given = command->count("--block") > 0;
    o->devices_given = command->count("--devices") > 0;
    run_cholesky_command(*o);
  });
}

}  // namespace conveyor::cli
