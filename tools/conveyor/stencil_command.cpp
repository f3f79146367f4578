// conveyor stencil: an iterative 2D Jacobi 5-point stencil on the task runtime (docs/stencil.md):
// GB/s of grid traffic, the copies between host and devices, tasks per worker, and with --check
// exact equality with a sequential run on the host.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "distributed/stencil_on_ranks.hpp"
#include "progress_line.hpp"
#include "runtime_cli_options.hpp"
#include "stencil/grid.hpp"
#include "stencil/stencil.hpp"
#include "stencil/stencil_run.hpp"

namespace conveyor::cli {
namespace {

namespace st = conveyor::apps::stencil;

struct StencilCliOptions {
  int n = 4096;
  int block = 0;  // not given: chosen from n and the workers (apps/common/block_size.hpp)
  bool block_given = false;
  int sweeps = 20;
  int temporal_block = 1;
  RuntimeCliOptions runtime;  // runtime.sched empty: the runtime's choice (eager on CPUs, model
                              // with a device); runtime.platform: a simulated cluster file
  OutputOptions output;
};

constexpr RuntimeCommand kStencil{
    .name = "stencil",
    .simulated_node = true,
    .timed = "Runs of T sweeps timed, each from the initial grid",
    .warmup = "run (3 x 3 tiles, 2 sweeps; builds the OpenCL program)",
    .check =
        "Compare every cell with a sequential run on the host; they must be equal (exit 1 "
        "when not)",
    .too_big = "grids larger than it still run",
    .layout = "in blocks",
};

st::RunConfig configuration(const StencilCliOptions& o, const ResolvedRuntime& resolved) {
  if (o.block_given && o.block <= 0)
    throw UsageError("stencil: --block must be positive (got " + std::to_string(o.block) + ")");
  if (resolved.distributed() && o.temporal_block > 1)
    throw UsageError(
        "stencil: --temporal-block > 1 runs on one node only; with --grid, mpirun or --platform "
        "give --temporal-block 1");
  st::RunConfig c;
  c.n = o.n;
  c.block = o.block;
  c.sweeps = o.sweeps;
  c.temporal_block = o.temporal_block;
  c.runtime = resolved.runtime;
  o.runtime.apply(c);
  return c;
}

nlohmann::json result_row(const st::RunConfig& c, const st::RunResult& r) {
  const RuntimeStats& s = r.best.stats;
  const nlohmann::json workers = worker_rows(s);
  const int cpu_workers = cpu_worker_count(s);
  nlohmann::json row = {
      {"n", c.n},
      {"block", r.block},
      {"tiles", r.best.tiles},
      {"sweeps", c.sweeps},
      {"temporal_block", c.temporal_block},
      {"rounds", r.best.rounds},
      {"task_bytes", r.task_bytes},
      {"devices", workers_label(c.runtime)},
      {"scheduler", s.scheduler.empty() ? c.runtime.scheduler : s.scheduler},
      {"cpu_workers", cpu_workers},
      {"time_s", r.best.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", c.repeat},
      {"gbs", r.gbs},
      {"sweep_bytes", st::sweep_bytes(c.n)},
      {"tasks", r.best.tasks},
      {"device_memory_limit_bytes", c.runtime.device_memory_limit},
      {"prefetches", s.prefetches},
      {"mismatches", r.checked ? nlohmann::json(r.mismatches) : nlohmann::json(nullptr)},
      {"max_abs_diff", r.checked ? nlohmann::json(r.max_abs_diff) : nlohmann::json(nullptr)},
      {"check", r.checked ? (r.passed() ? "passed" : "failed") : "not run"},
      {"workers", workers},
  };
  row.update(copy_fields(s));
  return row;
}

void print_stencil_tables(std::ostream& out, const Report& report) {
  const auto& r = report.results().front();
  const int tiles = r["tiles"].get<int>();
  const int depth = r["temporal_block"].get<int>();
  out << fmt::format(
      "Jacobi 5-point stencil n = {}, block = {}: {} x {} tiles, {} sweeps, {} tasks{}; {:.1f} MB "
      "of grid traffic per sweep (2 * 8 * n^2)\n\n",
      r["n"].get<int>(), r["block"].get<int>(), tiles, tiles, r["sweeps"].get<int>(),
      count(r["tasks"]),
      depth > 1 ? fmt::format(" (temporal block {}: {} rounds, halo {} wide)", depth,
                              r["rounds"].get<int>(), depth)
                : "",
      r["sweep_bytes"].get<double>() / 1e6);

  Table perf({"devices", "scheduler", "time s", "median s", "GB/s", "mismatches", "check"});
  perf.add_row({r["devices"], r["scheduler"], fixed(r["time_s"], 3), fixed(r["median_time_s"], 3),
                fixed(r["gbs"], 2), r["mismatches"].is_null() ? "-" : count(r["mismatches"]),
                r["check"]});
  perf.print(out);

  // The copies cholesky prints; with a device memory limit, the evictions and write-backs too.
  out << "\nCopies between host and devices (MB = 1e6 bytes)\n";
  copies_table(nlohmann::json::array({r}), {"devices"}).print(out);

  out << "\nTasks per worker (fastest run)\n";
  Table workers({"worker", "tasks", "busy s"});
  for (const auto& w : r["workers"])
    workers.add_row({w["name"], count(w["tasks"]), fixed(w["busy_s"].get<double>(), 3)});
  workers.print(out);
}

// On this machine's workers: one result row.
void run_on_this_node(const StencilCliOptions& o, const st::RunConfig& c,
                      const nlohmann::json& options) {
  st::validate(c);  // every bad option before the grids are allocated
  Report report("stencil", options);
  st::RunResult r;
  {
    ProgressLine progress("stencil", o.output.quiet);
    st::RunConfig shown = c;
    shown.progress = progress.step_fn();
    r = st::run_stencil(shown);
  }
  report.add_result(result_row(c, r));
  if (!o.block_given) report.add_note(chosen_block_note(report.results().front(), o.n));
  report.add_note(
      "GB/s = sweeps * 2 * 8 * n^2 bytes / time / 1e9 (each cell read and written once per sweep; "
      "halo reads not counted); time from the first submit to the end of wait_all, copies home "
      "included (fastest of --repeat)");
  if (o.runtime.check)
    report.add_note(
        "check: every cell equal to a sequential run on the host (same arithmetic, same order; no "
        "tolerance)");
  emit(report, o.output, [&](std::ostream& out) { print_stencil_tables(out, report); });
  if (!r.passed())
    throw ValidationError(
        fmt::format("stencil: check failed: {} cells differ from the sequential reference (largest "
                    "difference {:.3e})",
                    r.mismatches, r.max_abs_diff));
}

void run_stencil_command(const StencilCliOptions& o) {
  const ResolvedRuntime resolved = resolve_runtime(o.runtime, kStencil);
  const st::RunConfig c = configuration(o, resolved);
  nlohmann::json options = report_options(o.runtime);
  options.update({{"n", o.n},
                  {"block", o.block_given ? nlohmann::json(o.block) : "auto"},
                  {"sweeps", o.sweeps},
                  {"temporal_block", o.temporal_block}});
  const DistributedStencilRun run{c, o.runtime.grid, o.output, options};
  if (resolved.place == RunPlace::simulated_cluster)
    run_simulated_cluster_stencil(run, o.runtime.platform);
  else if (resolved.place == RunPlace::ranks)
    run_distributed_stencil(run);
  else
    run_on_this_node(o, c, options);
}

// The options only stencil has: the grid and the sweeps.
void add_grid_options(CLI::App& command, StencilCliOptions& o) {
  command.add_option("--n", o.n, "Grid side, boundary included (default 4096)")->option_text("N");
  command
      .add_option("--block", o.block,
                  "Tile side; the last tiles are narrower when it does not divide N (default: "
                  "from N and the workers, as cholesky)")
      ->option_text("B");
  command.add_option("--sweeps", o.sweeps, "Jacobi sweeps (default 20)")->option_text("T");
  command
      .add_option("--temporal-block", o.temporal_block,
                  "Sweeps per task (temporal blocking): each task does D sweeps on its tile from "
                  "a halo D wide (neighbours' strips and corners, recomputed redundantly), so a "
                  "tile crosses to a device once per D sweeps; at most the narrowest tile's side; "
                  "one node only (default 1: one sweep per task)")
      ->option_text("D");
}

constexpr const char* kStencilExamples =
    "Examples:\n"
    "  conveyor stencil --n 4096 --sweeps 20 --check            CPU workers, checked\n"
    "  conveyor stencil --n 4096 --devices opencl:0 --check     the OpenCL kernel only\n"
    "  conveyor stencil --n 4096 --devices all --sched eager    CPUs and every device\n"
    "  conveyor stencil --n 1000 --block 96 --sweeps 5 --check  ragged last tiles\n"
    "  conveyor stencil --n 2048 --block 256 --devices opencl:0 --device-memory 4MiB --check\n"
    "      out of core: two 32 MiB grids through 4 MiB of device memory\n"
    "  conveyor stencil --n 4096 --block 512 --sweeps 20 --temporal-block 4 --devices opencl:0 "
    "\\\n"
    "      --device-memory 16MiB --check   4 sweeps per task: each tile crosses once per 4 "
    "sweeps\n"
    "  conveyor stencil --n 2048 --cpus 2 --trace t.json && conveyor plot t.json -o gantt.png\n"
    "  mpirun -np 4 conveyor stencil --n 8192 --grid 2x2 --check   on 4 ranks, tiles in blocks\n"
    "  conveyor stencil --n 32768 --block 1024 --platform platforms/cluster-64xcpu.json --grid "
    "4x4\n"
    "      16 simulated nodes, virtual time\n"
    "out = c0 in + c1 (north + south + west + east), c0 = 0.5, c1 = 0.125; the outer ring is a\n"
    "fixed boundary. Each sweep is one task per tile reading its tile and its neighbours' edge\n"
    "strips (the halo) of one grid and writing its tile and its strips of the other; with\n"
    "--temporal-block D a task does D sweeps from strips and corners D wide. GB/s counts\n"
    "2 * 8 * n^2 bytes per sweep; docs/stencil.md.";

}  // namespace

void add_stencil_command(CLI::App& app) {
  auto o = std::make_shared<StencilCliOptions>();
  CLI::App* command = app.add_subcommand(
      "stencil",
      "Iterative 2D Jacobi 5-point stencil on the task runtime: GB/s, host/device copies, a check");
  add_grid_options(*command, *o);
  add_runtime_options(*command, o->runtime, kStencil);
  add_output_options(*command, o->output);
  add_quiet_option(*command, o->output);
  command->footer(kStencilExamples);
  command->callback([o, command] {
    o->block_given = command->count("--block") > 0;
    run_stencil_command(*o);
  });
}

}  // namespace conveyor::cli
