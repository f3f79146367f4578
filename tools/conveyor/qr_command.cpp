// conveyor qr: tile Householder QR on the task runtime, CPU workers and devices (docs/qr.md):
// GFLOP/s, the host/device copies, tasks per worker, and with --check the residual and the
// orthogonality of Q against their bounds. --platform runs it on a simulated node, or on a
// simulated cluster.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "conveyor/units.hpp"
#include "distributed/qr_on_ranks.hpp"
#include "progress_line.hpp"
#include "qr/qr.hpp"
#include "qr/qr_matrix.hpp"
#include "qr/qr_run.hpp"
#include "runtime_cli_options.hpp"

namespace conveyor::cli {
namespace {

namespace qr = conveyor::apps::qr;

struct QrCliOptions {
  int n = 4096;
  int m = 0;      // rows; not given: n (square)
  int block = 0;  // not given: chosen from n and the workers (apps/common/block_size.hpp)
  bool block_given = false;
  int ib = 0;  // not given: from the tile (qr::inner_block_for)
  bool ib_given = false;
  int domains = 0;  // not given: qr::domains_for
  std::vector<std::string> precisions{"d"};
  bool tree = false;          // with --grid: a domain per process row, merged by a binary tree
  RuntimeCliOptions runtime;  // runtime.sched empty: the runtime's choice (eager on CPUs, model
                              // with a device)
  OutputOptions output;
};

constexpr RuntimeCommand kQr{
    .name = "qr",
    .timed = "Factorisations timed",
    .warmup = "factorisation (3 x 3 tiles) before timing",
    .check =
        "Check ||A - Q R||_F / ||A||_F and ||Q^T Q - I||_F / n, each <= 4 m * unit "
        "roundoff (m = rows); exit 1 when above",
    .too_big = "a matrix larger than it still factorises",
    .layout = "2D block-cyclic",
};

// One configuration per precision; on a simulated node every device of the platform, the kernels
// run only with --sim-run-kernels.
std::vector<qr::RunConfig> configurations(const QrCliOptions& o, const ResolvedRuntime& resolved) {
  if (o.block_given && o.block <= 0)
    throw UsageError("qr: --block must be positive (got " + std::to_string(o.block) + ")");
  if (o.ib_given && o.ib <= 0)
    throw UsageError("qr: --ib must be positive (got " + std::to_string(o.ib) + ")");
  if (o.m != 0 && o.m != o.n && resolved.distributed())
    throw UsageError(
        "qr: a run over several ranks (--grid) factorises square matrices: leave out --m");
  if (o.domains != 0 && resolved.distributed())
    throw UsageError(
        "qr: --domains is for one node; over several ranks --tree gives each process row a "
        "domain");
  if (o.tree && !resolved.distributed())
    throw UsageError("qr: --tree chooses the reduction tree of a run over several ranks (--grid)");
  std::vector<qr::RunConfig> configs;
  for (const auto& p : o.precisions) {
    qr::RunConfig c;
    c.n = o.n;
    c.m = o.m;
    c.block = o.block;
    c.ib = o.ib;
    c.domains = o.domains;
    c.precision = qr::parse_precision(p);
    c.runtime = resolved.runtime;
    o.runtime.apply(c);
    configs.push_back(std::move(c));
  }
  if (!o.runtime.trace.empty() && configs.size() > 1)
    throw UsageError("qr: --trace needs a single configuration (one precision)");
  return configs;
}

nlohmann::json checked_or_null(bool checked, double v) {
  return checked ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json result_row(const qr::RunConfig& c, const qr::RunResult& r) {
  const RuntimeStats& s = r.best.stats;
  const nlohmann::json workers = worker_rows(s);
  const int cpu_workers = cpu_worker_count(s);
  const bool simulated = !c.runtime.platform.empty();
  nlohmann::json row = {
      {"m", c.rows()},
      {"n", c.n},
      {"block", r.block},
      {"ib", r.ib},
      {"tiles", r.best.tiles},
      {"row_tiles", r.best.row_tiles},
      {"domains", r.best.domains},
      {"precision", qr::to_string(c.precision)},
      {"devices", workers_label(c.runtime)},
      {"scheduler", s.scheduler.empty() ? c.runtime.scheduler : s.scheduler},
      {"cpu_workers", cpu_workers},
      {"gflops", r.gflops},
      {"time_s", r.best.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", c.repeat},
      {"tasks", r.best.total_tasks()},
      {"geqrt_tasks", r.best.geqrt_tasks},
      {"gemqrt_tasks", r.best.gemqrt_tasks},
      {"tpqrt_tasks", r.best.tpqrt_tasks},
      {"tpmqrt_tasks", r.best.tpmqrt_tasks},
      {"ttqrt_tasks", r.best.ttqrt_tasks},
      {"ttmqrt_tasks", r.best.ttmqrt_tasks},
      {"device_memory_limit_bytes", c.runtime.device_memory_limit},
      {"prefetches", s.prefetches},
      {"platform", simulated ? nlohmann::json(c.runtime.platform) : nlohmann::json(nullptr)},
      {"simulated", simulated},
      {"residual", checked_or_null(r.checked, r.check.residual)},
      {"residual_bound", r.residual_bound},
      {"orthogonality", checked_or_null(r.checked, r.check.orthogonality)},
      {"orthogonality_bound", r.orthogonality_bound},
      {"check", r.checked ? (r.passed() ? "passed" : "failed") : "not run"},
      {"cpu_kernels", r.cpu_kernels},
      {"workers", workers},
  };
  row.update(copy_fields(s));  // total_copies among them
  return row;
}

std::string sci(const nlohmann::json& v) {
  return v.is_null() ? "-" : fmt::format("{:.2e}", v.get<double>());
}

// The copies cholesky and stencil print; with a device memory limit, the evictions and write-backs.
void print_copies(std::ostream& out, const nlohmann::json& rows) {
  out << "\nCopies between host and devices (MB = 1e6 bytes)\n";
  copies_table(rows, {"precision", "devices"}).print(out);
}

void print_qr_tables(std::ostream& out, const Report& report) {
  const auto& rows = report.results();
  if (rows.empty()) return;
  const auto& first = rows.front();
  const int m = first["m"].get<int>(), n = first["n"].get<int>();
  const int mt = first["row_tiles"].get<int>(), nt = first["tiles"].get<int>();
  const int domains = first["domains"].get<int>();
  auto tasks = [&](const char* kind) { return first[std::string(kind) + "_tasks"].get<long>(); };
  const std::string shape =
      m == n ? fmt::format("n = {}", n) : fmt::format("m x n = {} x {}", m, n);
  std::string tiles =
      m == n ? fmt::format("{} tiles per side", nt) : fmt::format("{} x {} tiles", mt, nt);
  std::string tree_tasks;
  if (domains > 1) {
    tiles += fmt::format(" in {} domains of tile rows merged by a binary tree", domains);
    tree_tasks = fmt::format(", {} ttqrt, {} ttmqrt", tasks("ttqrt"), tasks("ttmqrt"));
  }
  const std::string flops = m == n ? "4/3 n^3" : "2 m n^2 - 2/3 n^3";
  out << fmt::format(
      "QR {}, block = {}, ib = {}: {}, {} tasks ({} geqrt, {} gemqrt, {} tpqrt, {} tpmqrt{}), {} "
      "= {:.3g} flop\nCPU kernels: {}\n\n",
      shape, first["block"].get<int>(), first["ib"].get<int>(), tiles, first["tasks"].get<long>(),
      tasks("geqrt"), tasks("gemqrt"), tasks("tpqrt"), tasks("tpmqrt"), tree_tasks, flops,
      qr::qr_flops(m, n), first["cpu_kernels"].get<std::string>());

  Table perf({"precision", "devices", "scheduler",
              first["simulated"].get<bool>() ? "simulated s" : "time s", "GFLOP/s", "residual",
              "bound", "orthogonality", "bound", "check"});
  for (const auto& r : rows)
    perf.add_row({r["precision"], r["devices"], r["scheduler"], fixed(r["time_s"], 3),
                  fixed(r["gflops"], 2), sci(r["residual"]), sci(r["residual_bound"]),
                  sci(r["orthogonality"]), sci(r["orthogonality_bound"]), r["check"]});
  perf.print(out);
  print_copies(out, rows);

  out << "\nTasks per worker (fastest run)\n";
  Table workers({"precision", "scheduler", "worker", "tasks", "busy s"});
  for (const auto& r : rows)
    for (const auto& w : r["workers"]) {
      // A simulated host has many cores: list only the workers that ran something.
      if (r["simulated"].get<bool>() && w["tasks"].get<std::uint64_t>() == 0) continue;
      workers.add_row({r["precision"], r["scheduler"], w["name"],
                       std::to_string(w["tasks"].get<std::uint64_t>()),
                       fixed(w["busy_s"].get<double>(), 3)});
    }
  workers.print(out);
}

// Over MPI ranks (--grid, mpirun) or on a simulated cluster (a cluster file in --platform): one
// configuration.
void run_distributed(const QrCliOptions& o, const ResolvedRuntime& resolved,
                     const std::vector<qr::RunConfig>& configs, const nlohmann::json& options) {
  if (configs.size() > 1)
    throw UsageError("qr: a distributed run takes one configuration (one precision)");
  const DistributedQrRun run{configs.front(), o.runtime.grid, o.output, options, o.tree};
  if (resolved.place == RunPlace::simulated_cluster)
    run_simulated_cluster_qr(run, o.runtime.platform);
  else
    run_distributed_qr(run);
}

void add_notes(Report& report, const QrCliOptions& o, const ResolvedRuntime& resolved) {
  const auto& first = report.results().front();
  if (!o.block_given) report.add_note(chosen_block_note(first, o.n));
  if (!o.ib_given)
    report.add_note(fmt::format(
        "ib {} chosen for tiles of {} (on CPU workers alone 64, or the tile / 8 above 512, at "
        "most 128; with devices 32; --ib sets it)",
        first["ib"].get<int>(), first["block"].get<int>()));
  else if (first["ib"].get<int>() != o.ib)
    report.add_note(fmt::format("ib {} taken as the block, {}", o.ib, first["ib"].get<int>()));
  report.add_note(fmt::format(
      "GFLOP/s = ({}) / time / 1e9; time from the first submit to the end of wait_all (fastest "
      "of --repeat)",
      first["m"].get<int>() == first["n"].get<int>() ? "4/3 n^3" : "2 m n^2 - 2/3 n^3"));
  if (resolved.place == RunPlace::simulated_node)
    report.add_note(fmt::format(
        "simulated on {}: the time is virtual, from the platform's rates{}", o.runtime.platform,
        o.runtime.sim_run_kernels ? "; the CPU kernels ran, for every task" : "; no kernel ran"));
  if (o.runtime.check)
    report.add_note(
        "residual = ||A - Q R||_F / ||A||_F, orthogonality = ||Q^T Q - I||_F / n, each accepted "
        "up to 4 m * unit roundoff, m the rows (Q rebuilt from the reflectors with the same "
        "kernels)");
}

// On this machine or on one simulated node: one result row per configuration.
void run_on_this_node(const QrCliOptions& o, const ResolvedRuntime& resolved,
                      const std::vector<qr::RunConfig>& configs, const nlohmann::json& options) {
  for (const auto& c : configs) qr::validate(c);  // every bad option before the first long run
  Report report("qr", options);
  std::vector<std::string> failures;
  {
    ProgressLine progress("qr", o.output.quiet);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const qr::RunConfig& c = configs[i];
      qr::RunConfig shown = c;
      shown.progress = progress.step_fn(configuration_label(i, configs.size()));
      qr::RunResult r = qr::run_qr(shown);
      report.add_result(result_row(c, r));
      if (!r.passed())
        failures.push_back(fmt::format(
            "{} precision: residual {:.3e} (bound {:.3e}), orthogonality {:.3e} (bound {:.3e})",
            qr::to_string(c.precision), r.check.residual, r.residual_bound, r.check.orthogonality,
            r.orthogonality_bound));
    }
  }
  add_notes(report, o, resolved);
  emit(report, o.output, [&](std::ostream& out) { print_qr_tables(out, report); });
  if (!failures.empty()) throw ValidationError("qr: check failed: " + failures.front());
}

void run_qr_command(const QrCliOptions& o) {
  const ResolvedRuntime resolved = resolve_runtime(o.runtime, kQr);
  const std::vector<qr::RunConfig> configs = configurations(o, resolved);
  nlohmann::json options = report_options(o.runtime);
  options.update({{"m", o.m != 0 ? o.m : o.n},
                  {"n", o.n},
                  {"block", o.block_given ? nlohmann::json(o.block) : "auto"},
                  {"ib", o.ib_given ? nlohmann::json(o.ib) : "auto"},
                  {"precision", join(o.precisions)}});
  if (resolved.distributed())
    run_distributed(o, resolved, configs, options);
  else
    run_on_this_node(o, resolved, configs, options);
}

// The options only qr has: the matrix and the reduction tree over ranks.
void add_matrix_options(CLI::App& command, QrCliOptions& o) {
  command.add_option("--n", o.n, "Matrix order, or columns with --m (default 4096)")
      ->option_text("N");
  command
      .add_option("--m", o.m,
                  "Rows, at least N: an M x N matrix (tall: R is N x N, the reflectors fill the "
                  "rows below); default N (square); not with --grid")
      ->option_text("M");
  command
      .add_option("--block", o.block,
                  "Tile size; the last tiles are narrower when it does not divide N (default: "
                  "from N and the workers, 1024 at most, as cholesky)")
      ->option_text("B");
  command
      .add_option("--ib", o.ib,
                  "Inner blocking of the reflectors (T tiles are ib x B); taken as B when larger "
                  "(default on CPU workers alone: 64, or B/8 for tiles above 512, at most 128; "
                  "with devices 32)")
      ->option_text("IB");
  command
      .add_option("--domains", o.domains,
                  "One node: cut the tile rows into D domains, each eliminated into its own top "
                  "tile, the tops merged by a binary tree (TT kernels, on CPU workers); default: "
                  "1 (the flat tree), or one per CPU worker where the matrix has too few tile "
                  "columns to keep them busy (a tall, thin one); with --grid see --tree")
      ->option_text("D");
  command
      .add_option("--precision", o.precisions,
                  "s (single) or d (double), or both as s,d: one result row each (default d)")
      ->delimiter(',')
      ->option_text("s|d[,..]");
}

void add_tree_option(CLI::App& command, QrCliOptions& o) {
  command.add_flag("--tree", o.tree,
                   "With --grid: each process row eliminates its own tiles of a column, and a "
                   "binary tree merges the process rows (2(P-1) messages per column and step "
                   "instead of about 2t(P-1)/P), instead of the flat tree of one node, which "
                   "pipelines better from step to step (docs/qr.md compares them)");
}

constexpr const char* kQrExamples =
    "Examples:\n"
    "  conveyor qr --n 4096 --check                      all cores, tile size chosen, checked\n"
    "  conveyor qr --n 2048 --block 256 --ib 32 --precision s,d\n"
    "      both precisions, 8 x 8 tiles of 256, reflectors in blocks of 32\n"
    "  conveyor qr --n 1000 --block 96 --ib 40 --check   ragged last tile, ib not dividing B\n"
    "  conveyor qr --m 100000 --n 256 --check           tall and skinny: 2 m n^2 flops, not m^3\n"
    "  conveyor qr --n 2048 --block 256 --devices opencl:0 --check\n"
    "      every task on the OpenCL device (all four kernels), checked\n"
    "  conveyor qr --n 2048 --block 256 --devices all     CPUs and every device, model "
    "scheduler\n"
    "  conveyor qr --n 16384 --block 1024 --platform platforms/4xV100-pcie3.json\n"
    "      one simulated node (12 cores, 4 V100), virtual time, no kernel run\n"
    "  conveyor qr --n 4096 --repeat 3 --json-out qr.json\n"
    "  conveyor qr --n 2048 --cpus 2 --trace t.json && conveyor plot t.json -o gantt.png\n"
    "  mpirun -np 4 conveyor qr --n 4096 --block 256 --grid 2x2 --check\n"
    "      4 ranks, tiles 2D block-cyclic, checked on rank 0\n"
    "  conveyor qr --n 16384 --block 512 --platform platforms/cluster-64xcpu.json --grid 4x4\n"
    "      16 simulated nodes in this process\n"
    "The matrix is generated (entries uniform in [-1, 1), deterministic). GFLOP/s counts 4/3 "
    "n^3\nflop. The tasks per step k: geqrt (diagonal tile), gemqrt (its row), tpqrt (each tile "
    "below),\ntpmqrt (each tile right of those); docs/qr.md. On AVX2 CPUs without AVX-512 "
    "tpmqrt is a\nfused kernel of Conveyor's where it is faster than LAPACK's; "
    "CONVEYOR_QR_TS_UPDATE=lapack keeps\nLAPACK's (the run's cpu_kernels says which).";

}  // namespace

void add_qr_command(CLI::App& app) {
  auto o = std::make_shared<QrCliOptions>();
  CLI::App* command = app.add_subcommand(
      "qr",
      "Tile Householder QR factorisation on the task runtime (CPU workers, OpenCL and CUDA "
      "devices): GFLOP/s, host/device copies and a check");
  add_matrix_options(*command, *o);
  add_runtime_options(*command, o->runtime, kQr);
  add_tree_option(*command, *o);
  add_output_options(*command, o->output);
  add_quiet_option(*command, o->output);
  command->footer(kQrExamples);
  command->callback([o, command] {
    o->block_given = command->count("--block") > 0;
    o->ib_given = command->count("--ib") > 0;
    run_qr_command(*o);
  });
}

}  // namespace conveyor::cli
