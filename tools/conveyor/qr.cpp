// conveyor qr: tile Householder QR on the task runtime, CPU workers (docs/qr.md): GFLOP/s, tasks
// per worker, and with --check the residual and the orthogonality of Q against their bounds.
#include "qr/qr.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "qr/matrix.hpp"
#include "qr/run.hpp"
#include "qr_distributed.hpp"

namespace conveyor::cli {
namespace {

namespace qr = conveyor::apps::qr;

struct QrCliOptions {
  int n = 4096;
  int block = 0;  // not given: chosen from n and the workers (apps/common/block_size.hpp)
  bool block_given = false;
  int ib = qr::kDefaultInnerBlock;
  std::vector<std::string> precisions{"d"};
  std::vector<std::string> devices{"cpu"};
  std::string sched;  // empty: the runtime's choice (eager on CPUs)
  int cpus = -1;
  int repeat = 1;
  bool no_warmup = false;
  bool no_pin = false;
  bool check = false;
  std::string trace;
  std::string grid;      // PxQ: distributed over MPI ranks
  bool tree = false;     // with --grid: a domain per process row, merged by a binary tree
  std::string platform;  // a simulated cluster file
  bool sim_run_kernels = false;
  OutputOptions output;
};

std::vector<qr::RunConfig> configurations(const QrCliOptions& o) {
  if (o.block_given && o.block <= 0)
    throw UsageError("qr: --block must be positive (got " + std::to_string(o.block) + ")");
  // The devices' kernels are the next slice; say so rather than run on the CPUs alone.
  for (const auto& d : o.devices)
    if (d != "cpu" && d != "cpu:0")
      throw UsageError("qr: --devices takes only cpu for now (got '" + d +
                       "'); GPU and OpenCL kernels come later");
  if (o.cpus == 0 || o.cpus < -1) throw UsageError("qr: --cpus must be positive");
  std::vector<qr::RunConfig> configs;
  for (const auto& p : o.precisions) {
    qr::RunConfig c;
    c.n = o.n;
    c.block = o.block;
    c.ib = o.ib;
    c.precision = qr::parse_precision(p);
    c.runtime.cpus = o.cpus;
    c.runtime.pin = !o.no_pin;
    if (!o.sched.empty()) c.runtime.scheduler = o.sched;
    c.repeat = o.repeat;
    c.warmup = !o.no_warmup;
    c.check = o.check;
    c.trace = o.trace;
    configs.push_back(std::move(c));
  }
  if (!o.trace.empty() && configs.size() > 1)
    throw UsageError("qr: --trace needs a single configuration (one precision)");
  return configs;
}

nlohmann::json checked_or_null(bool checked, double v) {
  return checked ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json result_row(const qr::RunConfig& c, const qr::RunResult& r) {
  const RuntimeStats& s = r.best.stats;
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : s.workers)
    workers.push_back({{"name", w.name}, {"tasks", w.tasks}, {"busy_s", w.busy_seconds}});
  return {
      {"n", c.n},
      {"block", r.block},
      {"ib", r.ib},
      {"tiles", r.best.tiles},
      {"precision", qr::to_string(c.precision)},
      {"devices", "cpu"},
      {"scheduler", s.scheduler.empty() ? c.runtime.scheduler : s.scheduler},
      {"cpu_workers", s.workers.size()},
      {"gflops", r.gflops},
      {"time_s", r.best.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", c.repeat},
      {"tasks", r.best.total_tasks()},
      {"geqrt_tasks", r.best.geqrt_tasks},
      {"gemqrt_tasks", r.best.gemqrt_tasks},
      {"tpqrt_tasks", r.best.tpqrt_tasks},
      {"tpmqrt_tasks", r.best.tpmqrt_tasks},
      {"total_copies", s.total_copies()},
      {"residual", checked_or_null(r.checked, r.check.residual)},
      {"residual_bound", r.residual_bound},
      {"orthogonality", checked_or_null(r.checked, r.check.orthogonality)},
      {"orthogonality_bound", r.orthogonality_bound},
      {"check", r.checked ? (r.passed() ? "passed" : "failed") : "not run"},
      {"cpu_kernels", r.cpu_kernels},
      {"workers", workers},
  };
}

std::string sci(const nlohmann::json& v) {
  return v.is_null() ? "-" : fmt::format("{:.2e}", v.get<double>());
}

void print_tables(std::ostream& out, const Report& report) {
  const auto& rows = report.results();
  if (rows.empty()) return;
  const auto& first = rows.front();
  auto counts = qr::task_counts(first["tiles"].get<int>());
  out << fmt::format(
      "QR n = {}, block = {}, ib = {}: {} tiles per side, {} tasks ({} geqrt, {} gemqrt, {} "
      "tpqrt, {} tpmqrt), 4/3 n^3 = {:.3g} flop\nCPU kernels: {}\n\n",
      first["n"].get<int>(), first["block"].get<int>(), first["ib"].get<int>(),
      first["tiles"].get<int>(), counts.total(), counts.geqrt, counts.gemqrt, counts.tpqrt,
      counts.tpmqrt, qr::qr_flops(first["n"].get<int>()), first["cpu_kernels"].get<std::string>());

  Table perf({"precision", "devices", "scheduler", "time s", "GFLOP/s", "residual", "bound",
              "orthogonality", "bound", "check"});
  for (const auto& r : rows)
    perf.add_row({r["precision"], r["devices"], r["scheduler"], fixed(r["time_s"], 3),
                  fixed(r["gflops"], 2), sci(r["residual"]), sci(r["residual_bound"]),
                  sci(r["orthogonality"]), sci(r["orthogonality_bound"]), r["check"]});
  perf.print(out);

  out << "\nTasks per worker (fastest run)\n";
  Table workers({"precision", "scheduler", "worker", "tasks", "busy s"});
  for (const auto& r : rows)
    for (const auto& w : r["workers"])
      workers.add_row({r["precision"], r["scheduler"], w["name"],
                       std::to_string(w["tasks"].get<std::uint64_t>()),
                       fixed(w["busy_s"].get<double>(), 3)});
  workers.print(out);
}

void run_qr_command(const QrCliOptions& o) {
  auto configs = configurations(o);
  // MPI is initialised only when asked for: --grid, or a launch by mpirun. Anything else runs
  // exactly as a build without MPI does.
  const bool distributed = !o.grid.empty() || mpi_launched() || !o.platform.empty();
  if (!o.platform.empty() && !is_cluster(o.platform))
    throw UsageError(
        "qr: --platform takes a simulated cluster file (docs/simulated-clusters.md); a single "
        "simulated node is not supported by qr yet");
  if (o.sim_run_kernels && o.platform.empty())
    throw UsageError("qr: --sim-run-kernels needs --platform");
  if (o.tree && !distributed)
    throw UsageError("qr: --tree chooses the reduction tree of a run over several ranks (--grid)");
  if (!distributed)
    for (const auto& c : configs) qr::validate(c);  // every bad option before the first long run

  nlohmann::json options = {{"n", o.n},
                            {"block", o.block_given ? nlohmann::json(o.block) : "auto"},
                            {"ib", o.ib},
                            {"precision", join(o.precisions)},
                            {"devices", join(o.devices)},
                            {"scheduler", o.sched.empty() ? "auto" : o.sched},
                            {"cpus", o.cpus},
                            {"repeat", o.repeat},
                            {"check", o.check},
                            {"warmup", !o.no_warmup},
                            {"pin", !o.no_pin}};
  if (distributed) {
    if (configs.size() > 1)
      throw UsageError("qr: a distributed run takes one configuration (one precision)");
    if (!o.platform.empty()) {
      if (mpi_launched())
        throw UsageError("qr: a simulated cluster runs in one process: leave mpirun out");
      qr::RunConfig c = configs.front();
      c.runtime.platform_run_kernels = o.sim_run_kernels;
      run_simulated_cluster_qr({c, o.grid, o.output, options, o.tree}, o.platform);
      return;
    }
    run_distributed_qr({configs.front(), o.grid, o.output, options, o.tree});
    return;
  }
  Report report("qr", options);
  std::vector<std::string> failures;
  for (const auto& c : configs) {
    qr::RunResult r = qr::run_qr(c);
    report.add_result(result_row(c, r));
    if (!r.passed())
      failures.push_back(fmt::format(
          "{} precision: residual {:.3e} (bound {:.3e}), orthogonality {:.3e} (bound {:.3e})",
          qr::to_string(c.precision), r.check.residual, r.residual_bound, r.check.orthogonality,
          r.orthogonality_bound));
  }
  const auto& first = report.results().front();
  if (!o.block_given)
    report.add_note(fmt::format(
        "block {} chosen for n = {} and {} workers (at least 4 sqrt(workers) tiles per side, at "
        "most 1024; --block sets it)",
        first["block"].get<int>(), o.n, first["cpu_workers"].get<int>()));
  if (first["ib"].get<int>() != o.ib)
    report.add_note(fmt::format("ib {} taken as the block, {}", o.ib, first["ib"].get<int>()));
  report.add_note(
      "GFLOP/s = (4/3 n^3) / time / 1e9; time from the first submit to the end of wait_all "
      "(fastest of --repeat)");
  if (o.check)
    report.add_note(
        "residual = ||A - Q R||_F / ||A||_F, orthogonality = ||Q^T Q - I||_F / n, each accepted "
        "up to 4 n * unit roundoff (Q rebuilt from the reflectors with the same kernels)");
  emit(report, o.output, [&](std::ostream& out) { print_tables(out, report); });
  if (!failures.empty()) throw ValidationError("qr: check failed: " + failures.front());
}

}  // namespace

void add_qr_command(CLI::App& app) {
  auto o = std::make_shared<QrCliOptions>();
  CLI::App* command = app.add_subcommand(
      "qr",
      "Tile Householder QR factorisation on the task runtime (CPU workers): GFLOP/s and a check");
  command->add_option("--n", o->n, "Matrix order (default 4096)")->option_text("N");
  command
      ->add_option("--block", o->block,
                   "Tile size; the last tiles are narrower when it does not divide N (default: "
                   "from N and the workers, 1024 at most, as cholesky)")
      ->option_text("B");
  command
      ->add_option("--ib", o->ib,
                   "Inner blocking of the reflectors (T tiles are ib x B); taken as B when larger "
                   "(default 32)")
      ->option_text("IB");
  command
      ->add_option("--precision", o->precisions,
                   "s (single) or d (double), or both as s,d: one result row each (default d)")
      ->delimiter(',')
      ->option_text("s|d[,..]");
  command
      ->add_option("--devices", o->devices,
                   "Workers: only cpu for now (GPU/OpenCL kernels come later)")
      ->delimiter(',')
      ->option_text("cpu");
  command
      ->add_option("--sched", o->sched,
                   "eager (default on CPUs), model, model-ready, round-robin, offload, locality "
                   "(docs/models.md)")
      ->option_text("NAME");
  command->add_option("--cpus", o->cpus, "CPU workers (default one per core)")->option_text("K");
  command
      ->add_option("--repeat", o->repeat,
                   "Factorisations timed; the fastest is reported, with the median (default 1)")
      ->option_text("R");
  command->add_flag("--no-pin", o->no_pin, "CPU workers not pinned to cores");
  command->add_flag("--no-warmup", o->no_warmup,
                    "Skip the small warm-up factorisation (3 x 3 tiles) before timing");
  command->add_flag("--check", o->check,
                    "Check ||A - Q R||_F / ||A||_F and ||Q^T Q - I||_F / n, each <= 4 n * unit "
                    "roundoff; exit 1 when above");
  command->add_option("--trace", o->trace, "Write a Chrome trace (conveyor plot FILE -o gantt.png)")
      ->option_text("FILE");
  command
      ->add_option("--grid", o->grid,
                   "Distribute over MPI ranks on a P x Q process grid, tiles 2D block-cyclic (run "
                   "under mpirun -np P*Q; default under mpirun: the most square grid)")
      ->option_text("PxQ");
  command->add_flag("--tree", o->tree,
                    "With --grid: each process row eliminates its own tiles of a column, and a "
                    "binary tree merges the process rows (2(P-1) messages per column and step "
                    "instead of about 2t(P-1)/P), instead of the flat tree of one node, which "
                    "pipelines better from step to step (docs/qr.md compares them)");
  command
      ->add_option("--platform", o->platform,
                   "A simulated cluster file (docs/simulated-clusters.md): every rank in this "
                   "process on modelled nodes and network, times virtual; with --grid PxQ")
      ->check(CLI::ExistingFile)
      ->option_text("CLUSTER");
  command->add_flag(
      "--sim-run-kernels", o->sim_run_kernels,
      "With --platform: also run the kernels and move the data (small n; allows --check)");
  add_output_options(*command, o->output);
  command->footer(
      "Examples:\n"
      "  conveyor qr --n 4096 --check                      all cores, tile size chosen, checked\n"
      "  conveyor qr --n 2048 --block 256 --ib 32 --precision s,d\n"
      "      both precisions, 8 x 8 tiles of 256, reflectors in blocks of 32\n"
      "  conveyor qr --n 1000 --block 96 --ib 40 --check   ragged last tile, ib not dividing B\n"
      "  conveyor qr --n 4096 --repeat 3 --json-out qr.json\n"
      "  conveyor qr --n 2048 --cpus 2 --trace t.json && conveyor plot t.json -o gantt.png\n"
      "  mpirun -np 4 conveyor qr --n 4096 --block 256 --grid 2x2 --check\n"
      "  conveyor qr --n 16384 --block 512 --platform platforms/cluster-64xcpu.json --grid 4x4\n"
      "      4 ranks, tiles 2D block-cyclic, checked on rank 0\n"
      "The matrix is generated (entries uniform in [-1, 1), deterministic). GFLOP/s counts 4/3 "
      "n^3\nflop. The tasks per step k: geqrt (diagonal tile), gemqrt (its row), tpqrt (each tile "
      "below),\ntpmqrt (each tile right of those); docs/qr.md.");
  command->callback([o, command] {
    o->block_given = command->count("--block") > 0;
    run_qr_command(*o);
  });
}

}  // namespace conveyor::cli
