// conveyor qr --grid PxQ under mpirun: the tile QR factorisation with 2D block-cyclic tiles, one
// runtime per rank, the messages the ranks exchanged, and with --check the single-node check on
// rank 0.
#include "qr_on_ranks.hpp"

#include <fmt/format.h>

#include <iostream>
#include <string>
#include <vector>

#include "../commands.hpp"
#include "../progress_line.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"
#include "qr/qr_distributed.hpp"
#include "qr/qr_matrix.hpp"

namespace conveyor::cli {
namespace {

namespace qr = conveyor::apps::qr;

std::string sci(double v) { return fmt::format("{:.2e}", v); }

void print(std::ostream& out, const nlohmann::json& row, const qr::DistributedResult& r) {
  out << fmt::format(
      "Distributed QR n = {}, block = {}, ib = {}: {} tiles per side, {} tasks, on {} ranks (grid "
      "{}, 2D block-cyclic), {}\n\n",
      row["n"].get<int>(), row["block"].get<int>(), r.ib, r.tiles, r.tasks, r.ranks.size(),
      row["grid"].get<std::string>(),
      r.domains > 1 ? fmt::format("reduction tree over {} domains (one per process row)", r.domains)
                    : std::string("flat tree"));
  Table perf({"precision", "grid", "devices", "time s", "GFLOP/s", "residual", "bound",
              "orthogonality", "bound", "check"});
  perf.add_row({row["precision"], row["grid"], row["devices"], fixed(r.time_s, 3),
                fixed(r.gflops, 2), r.checked ? sci(r.check.residual) : "-", sci(r.residual_bound),
                r.checked ? sci(r.check.orthogonality) : "-", sci(r.orthogonality_bound),
                row["check"]});
  perf.print(out);
  print_rank_table(out, r.ranks);
  out << fmt::format("\nCommunication: {} messages, {:.2f} MB\n", r.messages, r.bytes / 1e6);
  if (r.checked)
    out << fmt::format("Check: {} more messages gathered A and T on rank 0\n", r.gather_messages);
}

// Rank 0's result row.
nlohmann::json result_row(const qr::RunConfig& config, const qr::DistributedResult& r,
                          ProcessGrid grid) {
  auto checked_or_null = [&](double v) {
    return r.checked ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {
      {"n", config.n},
      {"block", config.block},
      {"ib", r.ib},
      {"tiles", r.tiles},
      {"precision", qr::to_string(config.precision)},
      {"grid", grid.to_string()},
      {"ranks", grid.size()},
      {"devices", rank_devices_label(config.runtime)},
      {"scheduler", resolved_scheduler(config.runtime)},
      {"cpu_workers", cpu_workers(config.runtime)},
      {"gflops", r.gflops},
      {"time_s", r.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", config.repeat},
      {"tasks", r.tasks},
      {"domains", r.domains},
      {"messages", r.messages},
      {"bytes", r.bytes},
      {"gather_messages", r.gather_messages},
      {"residual", checked_or_null(r.check.residual)},
      {"residual_bound", r.residual_bound},
      {"orthogonality", checked_or_null(r.check.orthogonality)},
      {"orthogonality_bound", r.orthogonality_bound},
      {"check", r.checked ? (r.passed() ? "passed" : "failed") : "not run"},
      {"per_rank", rank_rows(r.ranks)},
  };
}

void report(const DistributedQrRun& run, const qr::RunConfig& config,
            const qr::DistributedResult& r, ProcessGrid grid) {
  const nlohmann::json row = result_row(config, r, grid);
  nlohmann::json options_json = run.options;
  options_json["grid"] = grid.to_string();
  Report report("qr", options_json);
  report.add_result(row);
  report.add_note(
      "GFLOP/s = (4/3 n^3) / time / 1e9; time from a barrier before the first submit to the end "
      "of the collective wait_all, the slowest rank's (fastest of --repeat)");
  report.add_note(
      "messages: point-to-point tile messages of the factorisation (tiles of A, T factors and "
      "reflector copies); cpu_workers: per rank");
  if (config.check)
    report.add_note(
        "residual = ||A - Q R||_F / ||A||_F, orthogonality = ||Q^T Q - I||_F / n, each accepted "
        "up to 4 n * unit roundoff, computed on rank 0 from the gathered tiles of A and T");
  emit(report, run.output, [&](std::ostream& out) { print(out, row, r); });
}

// One rank's share of the run, on its Distributed; rank 0 prints.
void run_rank(const DistributedQrRun& run, const qr::RunConfig& config, ProcessGrid grid,
              Distributed& dist) {
  qr::DistributedConfig dc;
  dc.n = config.n;
  dc.block = config.block;
  dc.ib = config.ib;
  dc.precision = config.precision;
  dc.grid = grid;
  dc.repeat = config.repeat;
  dc.warmup = config.warmup;
  dc.check = config.check;
  dc.tree = run.tree;
  qr::DistributedResult r;
  {
    ProgressLine progress("qr", run.output.quiet || dist.rank() != 0);  // rank 0 speaks
    dc.progress = progress.step_fn();
    r = qr::run_distributed(dist, dc);
  }
  if (!config.trace.empty()) dist.write_trace(config.trace);
  if (dist.rank() == 0) report(run, config, r, grid);
  if (r.checked && !r.passed())
    throw ValidationError(fmt::format(
        "qr: check failed: residual {:.3e} (bound {:.3e}), orthogonality {:.3e} (bound {:.3e})",
        r.check.residual, r.residual_bound, r.check.orthogonality, r.orthogonality_bound));
}

// What one rank holds, roughly: its tiles of A (1/R of the matrix) and the copies the layer keeps
// of the tiles it reads from other ranks: the panel tiles of its process row (1/P of the matrix)
// and the row-k tiles the flat tree's updates pass through (1/Q); rank 0 with the check also the
// whole matrix, Q and two double matrices (qr::validate's count on one node).
double rank_bytes(const qr::RunConfig& c, ProcessGrid grid, int rank) {
  const double elements = static_cast<double>(c.n) * c.n;
  const double element_bytes = c.precision == qr::Precision::Single ? 4 : 8;
  double bytes = elements * element_bytes * (1.0 / grid.size() + 1.0 / grid.p + 1.0 / grid.q);
  if (c.check && rank == 0) bytes += elements * (2 * element_bytes + 2 * sizeof(double));
  return bytes;
}

void run_on_ranks(const DistributedQrRun& run, int size) {
  ProcessGrid grid = job_grid("qr", run.grid, size);
  qr::RunConfig config = run.config;
  share_node(config.runtime);
  config.block = job_block(config.block, config.n, rank_workers(config.runtime), size);
  qr::validate(config, /*needs_memory=*/false);  // this rank's share is checked below
  RuntimeOptions options = config.runtime;
  options.trace = !config.trace.empty();
  Runtime rt(options);
  Distributed dist(rt);
  require_rank_memory(dist, "qr", config.n, rank_bytes(config, grid, dist.rank()));
  run_rank(run, config, grid, dist);
}

}  // namespace

void run_distributed_qr(const DistributedQrRun& run) {
  run_on_every_rank([&](int, int size) { run_on_ranks(run, size); });
}

void run_simulated_cluster_qr(const DistributedQrRun& run, const std::string& cluster) {
  qr::RunConfig config = run.config;
  config.runtime.trace = !config.trace.empty();
  ClusterJob job = cluster_job("qr", cluster, run.grid, config.runtime);
  config.runtime = job.runtime;
  config.block = job_block(config.block, config.n, job.workers_per_rank, job.grid.size());
  qr::validate(config, config.runtime.platform_run_kernels);
  run_on_cluster(job, [&](Distributed& dist) { run_rank(run, config, job.grid, dist); });
}

}  // namespace conveyor::cli
