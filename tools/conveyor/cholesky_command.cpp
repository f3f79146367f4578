// conveyor cholesky: tiled block Cholesky on the task runtime (seed 003's evaluation), with its
// GFLOP/s and the host/device copies the runtime made (the seed's tables 3 and 5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/cholesky_matrix.hpp"
#include "cholesky/cholesky_run.hpp"
#include "commands.hpp"
#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "distributed/cholesky_on_ranks.hpp"
#include "progress_line.hpp"
#include "runtime_cli_options.hpp"

namespace conveyor::cli {
namespace {

namespace ch = conveyor::apps::cholesky;

struct CholeskyCliOptions {
  int n = 8192;
  int block = 0;  // not given: chosen from n and the workers (apps/common/block_size.hpp)
  bool block_given = false;
  std::vector<std::string> precisions{"d"};
  std::vector<std::string> offload;  // empty: gemm when the offload scheduler is asked for
  std::vector<std::string> coherences{"coherent"};
  std::vector<std::string> prefetch{"on"};  // RuntimeOptions::prefetch; "on,off" runs both
  bool calibrate = false;
  std::string models;     // performance models file (empty: next to the calibration)
  std::vector<int> gpus;  // device counts to simulate (empty: 1, 2, 4, ...)
  std::vector<std::string> device_copies{"host-staged"};
  RuntimeCliOptions runtime;  // runtime.sched empty: model when a device is listed (offload with
                              // --offload), else eager
  OutputOptions output;
};

constexpr RuntimeCommand kCholesky{
    .name = "cholesky",
    .sched =
        "model (earliest predicted finish from measured task times and copies), model-ready "
        "(model, devices first run tasks whose data is in place), eager, round-robin, "
        "offload, locality (default: model when a device is listed, offload with --offload "
        "or --platform, else eager)",
    .timed = "Factorisations timed",
    .warmup = "factorisation (which builds OpenCL programs first)",
    .check = "Check ||A - L L^T||_F / ||A||_F <= 8 sqrt(n) * unit roundoff; exit 1 when above",
    .too_big = "a matrix larger than it still factorises",
    .layout = "2D block-cyclic",
};

// Whether --devices picked a simulated node's workers (then they are the one configuration).
bool picked_on_platform(const CholeskyCliOptions& o, const ResolvedRuntime& resolved) {
  return resolved.place == RunPlace::simulated_node && o.runtime.devices_given;
}

// The simulated GPU counts to run: --gpus, else 1, 2, 4, ... up to the platform's devices (on a
// simulated cluster one count, all of the node's devices); the devices --devices picked on a
// simulated node; {0} (no simulated devices) without --platform.
std::vector<int> gpu_counts_of(const CholeskyCliOptions& o, const ResolvedRuntime& resolved) {
  const std::string& node = resolved.node_platform;
  if (node.empty()) {
    if (!o.gpus.empty()) throw UsageError("cholesky: --gpus needs --platform");
    return {0};
  }
  if (picked_on_platform(o, resolved)) {
    if (!o.gpus.empty()) throw UsageError("cholesky: give --devices or --gpus, not both");
    return {resolved.runtime.platform_devices};
  }
  const int have = static_cast<int>(platform_device_count(node));
  std::vector<int> counts = o.gpus;
  if (resolved.place == RunPlace::simulated_cluster) {
    if (counts.size() > 1) throw UsageError("cholesky: a simulated cluster takes one --gpus count");
    if (counts.empty() && have > 0) counts = {have};
  }
  if (counts.empty()) {
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
                                                              const ResolvedRuntime& resolved) {
  const std::string& sched_given = o.runtime.sched;
  const bool simulate = !resolved.node_platform.empty();
  std::vector<std::string> offload = o.offload;
  const bool seed_scheduler = sched_given.empty() ? simulate && !picked_on_platform(o, resolved)
                                                  : sched_given.rfind("model", 0) != 0;
  if (offload.empty() && seed_scheduler) offload = {"gemm"};
  RuntimeOptions chosen;
  chosen.scheduler = sched_given.empty() ? "auto" : sched_given;
  chosen.devices = resolved.runtime.devices;
  const bool host_only = resolved.runtime.platform_devices == RuntimeOptions::kPlatformHostOnly;
  chosen.platform = host_only ? "" : resolved.node_platform;  // --devices cpu: as on CPUs only
  chosen.offload = chosen.devices.empty() && !simulate ? std::vector<std::string>{} : offload;
  std::string sched = resolved_scheduler(chosen);
  if (offload.empty() && sched.rfind("model", 0) != 0) offload = {"gemm"};
  if ((o.calibrate || !o.models.empty()) && sched.rfind("model", 0) != 0)
    throw UsageError("cholesky: --calibrate and --models apply to --sched model or model-ready");
  return {std::move(offload), std::move(sched)};
}

// The runtime of every configuration but its precision, coherence, device copy, GPU count and
// prefetch, which configurations() varies.
RuntimeOptions common_runtime(const CholeskyCliOptions& o, const ResolvedRuntime& resolved) {
  const auto [offload, sched] = placement_of(o, resolved);
  RuntimeOptions runtime = resolved.runtime;
  const bool simulate = !resolved.node_platform.empty();
  runtime.platform = resolved.node_platform;  // on a simulated cluster, each rank's node
  runtime.scheduler = sched;
  runtime.offload = runtime.devices.empty() && !simulate ? std::vector<std::string>{} : offload;
  runtime.calibrate = o.calibrate;
  runtime.perf_models = o.models;  // the runtime keeps simulated times out of them
  for (const auto& pf : o.prefetch)
    if (pf != "on" && pf != "off")
      throw UsageError(fmt::format("cholesky: --prefetch takes on or off, got '{}'", pf));
  return runtime;
}

// One configuration per precision, coherence, device copy, GPU count and (--prefetch on,off)
// prefetch, in that order, side by side in the report.
std::vector<ch::RunConfig> configurations(const CholeskyCliOptions& o,
                                          const ResolvedRuntime& resolved) {
  if (o.block_given && o.block <= 0)
    throw UsageError("cholesky: --block must be positive (got " + std::to_string(o.block) + ")");
  const std::vector<int> gpu_counts = gpu_counts_of(o, resolved);
  ch::RunConfig c;
  c.n = o.n;
  c.block = o.block;
  c.runtime = common_runtime(o, resolved);
  o.runtime.apply(c);
  std::vector<ch::RunConfig> configs;
  for (const auto& p : o.precisions)
    for (const auto& coh : o.coherences)
      for (const auto& copy : o.device_copies)
        for (int gpus : gpu_counts)
          for (const auto& pf : o.prefetch) {
            c.precision = ch::parse_precision(p);
            c.runtime.coherence = parse_coherence(coh);
            c.runtime.device_copy = parse_device_copy(copy);
            c.runtime.platform_devices = gpus;
            c.runtime.prefetch = pf == "on";
            configs.push_back(c);
          }
  if (!o.runtime.trace.empty() && configs.size() > 1)
    throw UsageError(
        "cholesky: --trace needs a single configuration (one precision, one coherence, one "
        "device copy, one GPU count)");
  return configs;
}

nlohmann::json result_row(const ch::RunConfig& c, const ch::RunResult& r) {
  const RuntimeStats& s = r.best.stats;
  const nlohmann::json workers = worker_rows(s);
  const int cpu_workers = cpu_worker_count(s);
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
      {"tasks_run_ahead", s.tasks_run_ahead},
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

// The time, GFLOP/s and check of every configuration; a prefetch column only when the runs differ
// in it (--prefetch on,off).
void print_performance(std::ostream& out, const nlohmann::json& rows) {
  const auto& first = rows.front();
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
}

// The seed's table 3 (one device) and table 5 (several): copies by direction; with a device
// memory smaller than the matrix, the evictions and write-backs (which are D2H copies too).
void print_copies(std::ostream& out, const nlohmann::json& rows) {
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
  if (rows.front()["simulated"].get<bool>()) print_table5(out, rows);
}

void print_workers(std::ostream& out, const nlohmann::json& rows) {
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

void print_cholesky_tables(std::ostream& out, const Report& report) {
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
  print_performance(out, rows);
  print_copies(out, rows);
  print_workers(out, rows);
}

// Over MPI ranks (--grid, mpirun) or on a simulated cluster (a cluster file in --platform, every
// rank on its node platform): one configuration.
void run_distributed(const CholeskyCliOptions& o, const ResolvedRuntime& resolved,
                     const std::vector<ch::RunConfig>& configs, const nlohmann::json& options) {
  if (configs.size() > 1)
    throw UsageError(
        "cholesky: a distributed run takes one configuration (one precision, one coherence)");
  const DistributedCholeskyRun run{configs.front(), o.runtime.grid, o.output, options};
  if (resolved.place == RunPlace::simulated_cluster)
    run_simulated_cluster_cholesky(run, o.runtime.platform);
  else
    run_distributed_cholesky(run);
}

void run_on_this_node(const CholeskyCliOptions& o, const std::vector<ch::RunConfig>& configs,
                      const nlohmann::json& options) {
  for (const auto& c : configs) ch::validate(c);  // every bad option before the first long run
  Report report("cholesky", options);
  std::vector<std::string> failures;
  {
    ProgressLine progress("cholesky", o.output.quiet);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const ch::RunConfig& c = configs[i];
      ch::RunConfig shown = c;
      shown.progress = progress.step_fn(configuration_label(i, configs.size()));
      ch::RunResult r = ch::run_cholesky(shown);
      report.add_result(result_row(c, r));
      if (!r.passed())
        failures.push_back(
            fmt::format("{} precision on {} ({}): residual {:.3e} above the bound {:.3e}",
                        ch::to_string(c.precision), workers_label(c.runtime),
                        to_string(c.runtime.coherence), r.residual, r.residual_bound));
    }
  }
  if (!o.block_given) report.add_note(chosen_block_note(report.results().front(), o.n));
  report.add_note(
      "GFLOP/s = (n^3/3) / time / 1e9; time from the first submit to the end of "
      "wait_all (fastest of --repeat)");
  if (o.runtime.check)
    report.add_note(
        "residual = ||A - L L^T||_F / ||A||_F, accepted up to 8 sqrt(n) * unit roundoff");
  emit(report, o.output, [&](std::ostream& out) { print_cholesky_tables(out, report); });
  if (!failures.empty()) throw ValidationError("cholesky: check failed: " + join(failures, "; "));
}

void run_cholesky_command(const CholeskyCliOptions& o) {
  const ResolvedRuntime resolved = resolve_runtime(o.runtime, kCholesky);
  const std::vector<ch::RunConfig> configs = configurations(o, resolved);
  nlohmann::json options = report_options(o.runtime);
  options.update({{"n", o.n},
                  {"block", o.block_given ? nlohmann::json(o.block) : "auto"},
                  {"precision", join(o.precisions, ",")},
                  {"offload", join(o.offload, ",")},
                  {"coherence", join(o.coherences, ",")},
                  {"prefetch", join(o.prefetch, ",")},
                  {"scheduler", configs.front().runtime.scheduler},
                  {"calibrate", o.calibrate},
                  {"device_copy", join(o.device_copies, ",")}});
  if (resolved.distributed())
    run_distributed(o, resolved, configs, options);
  else
    run_on_this_node(o, configs, options);
}

// The options only cholesky has: the matrix, and where its tasks go.
void add_matrix_options(CLI::App& command, CholeskyCliOptions& o) {
  command.add_option("--n", o.n, "Matrix order (default 8192)")->option_text("N");
  command
      .add_option("--block", o.block,
                  "Tile size; the last tiles are narrower when it does not divide N (default: "
                  "from N and the workers, 1024 at most; see docs/cholesky.md)")
      ->option_text("B");
  command
      .add_option("--precision", o.precisions,
                  "s (single) or d (double), or both as s,d: one result row each (default d)")
      ->delimiter(',')
      ->option_text("s|d[,..]");
}

void add_placement_options(CLI::App& command, CholeskyCliOptions& o) {
  command
      .add_option("--offload", o.offload,
                  "Codelets the offload scheduler puts on the devices: potrf, trsm, syrk, gemm; "
                  "implies --sched offload (default: gemm, as in the seed, for every scheduler "
                  "but model and model-ready)")
      ->delimiter(',')
      ->option_text("LIST");
  command
      .add_option("--coherence", o.coherences,
                  "naive (copy in/out around every device task) or coherent (MSI, default); "
                  "naive,coherent runs both")
      ->delimiter(',')
      ->option_text("MODE[,..]");
  command
      .add_option("--prefetch", o.prefetch,
                  "on (default): a task queued for a busy device has its tiles copied in while "
                  "the tasks ahead of it run (into free device memory only); off: at its launch; "
                  "on,off runs both")
      ->delimiter(',')
      ->option_text("on|off[,..]");
  command.add_flag("--calibrate", o.calibrate,
                   "Model schedulers: measure every codelet on every worker kind at this tile "
                   "size before trusting the models (spreads tasks; the output says how many)");
  command
      .add_option("--models", o.models,
                  "Model schedulers: performance models file (default perfmodels.json next to "
                  "the probe's calibration; none = keep them in memory)")
      ->option_text("FILE");
}

void add_simulation_options(CLI::App& command, CholeskyCliOptions& o) {
  command
      .add_option("--device-copy", o.device_copies,
                  "Device-to-device movement: host-staged (default), peer-copy (seed method 2), "
                  "peer-direct (seed method 1: the task uses the peer's replica in place, over the "
                  "link); a list runs each")
      ->delimiter(',')
      ->option_text("MODE[,..]");
  command
      .add_option("--gpus", o.gpus,
                  "With --platform: device counts to simulate, e.g. 1,2,4 (default 1, 2, 4, ... "
                  "up to the platform's)")
      ->delimiter(',')
      ->option_text("LIST");
}

constexpr const char* kCholeskyExamples =
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
    "flop (1 GFLOP/s = 1e9 flop/s); copies are tile copies between host and device memories.";

}  // namespace

void add_cholesky_command(CLI::App& app) {
  auto o = std::make_shared<CholeskyCliOptions>();
  CLI::App* command = app.add_subcommand(
      "cholesky",
      "Block Cholesky factorisation on the task runtime: GFLOP/s and the host/device copies it "
      "needed (seed 003)");
  add_matrix_options(*command, *o);
  add_runtime_options(*command, o->runtime, kCholesky);
  add_placement_options(*command, *o);
  add_simulation_options(*command, *o);
  add_output_options(*command, o->output);
  add_quiet_option(*command, o->output);
  command->footer(kCholeskyExamples);
  command->callback([o, command] {
    o->block_given = command->count("--block") > 0;
    run_cholesky_command(*o);
  });
}

}  // namespace conveyor::cli
