// conveyor stencil --grid PxQ under mpirun, and on simulated clusters: the Jacobi sweeps with the
// tiles in blocks over the process grid, one runtime per rank, the strip messages the ranks
// exchanged against their closed form, and with --check the result gathered on rank 0 and compared
// with the sequential reference cell for cell.
#include "stencil_on_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "../commands.hpp"
#include "../progress_line.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"
#include "stencil/grid.hpp"
#include "stencil/stencil_distributed.hpp"

namespace conveyor::cli {
namespace {

namespace st = conveyor::apps::stencil;

void print(std::ostream& out, const nlohmann::json& row, const st::DistributedResult& r) {
  out << fmt::format(
      "Distributed Jacobi 5-point stencil n = {}, block = {}: {} x {} tiles, {} sweeps, {} tasks, "
      "on {} ranks (grid {}, blocks of tiles)\n\n",
      row["n"].get<int>(), row["block"].get<int>(), r.tiles, r.tiles, row["sweeps"].get<int>(),
      r.tasks, r.ranks.size(), row["grid"].get<std::string>());
  Table perf({"grid", "devices", "time s", "median s", "GB/s", "mismatches", "check"});
  perf.add_row({row["grid"], row["devices"], fixed(r.time_s, 3), fixed(r.median_time_s, 3),
                fixed(r.gbs, 2), r.checked ? std::to_string(r.mismatches) : "-", row["check"]});
  perf.print(out);
  print_rank_table(out, r.ranks, "the sweeps only");
  out << fmt::format(
      "\nCommunication: {} messages, {:.3f} MB; closed form {} strips, {:.3f} MB (one strip each "
      "way per tile edge between ranks and sweep)\n",
      count(row["messages"]), r.bytes / 1e6, r.expected.messages, r.expected.bytes / 1e6);
  if (r.checked)
    out << fmt::format("Check: {} more messages gathered the result on rank 0\n",
                       r.gather_messages);
}

// Rank 0's result row; `failed`: the check found a difference.
nlohmann::json result_row(const st::RunConfig& config, const st::DistributedResult& r,
                          ProcessGrid grid, const std::string& cluster, bool failed) {
  auto checked_or_null = [&](auto v) {
    return r.checked ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {
      {"n", config.n},
      {"block", std::min(config.block, config.n)},
      {"tiles", r.tiles},
      {"sweeps", config.sweeps},
      {"grid", grid.to_string()},
      {"ranks", grid.size()},
      {"platform", cluster.empty() ? nlohmann::json(nullptr) : nlohmann::json(cluster)},
      {"simulated", !cluster.empty()},
      {"devices", rank_devices_label(config.runtime)},
      {"scheduler", resolved_scheduler(config.runtime)},
      {"cpu_workers", cpu_workers(config.runtime)},
      {"time_s", r.time_s},
      {"median_time_s", r.median_time_s},
      {"repeat", config.repeat},
      {"gbs", r.gbs},
      {"sweep_bytes", st::sweep_bytes(config.n)},
      {"tasks", r.tasks},
      {"messages", r.messages},
      {"bytes", r.bytes},
      {"closed_form_messages", r.expected.messages},
      {"closed_form_bytes", r.expected.bytes},
      {"gather_messages", r.gather_messages},
      {"mismatches", checked_or_null(r.mismatches)},
      {"max_abs_diff", checked_or_null(r.max_abs_diff)},
      {"check", r.checked ? (failed ? "failed" : "passed") : "not run"},
      {"per_rank", rank_rows(r.ranks)},
  };
}

void report(const DistributedStencilRun& run, const nlohmann::json& row,
            const st::DistributedResult& r, const std::string& cluster) {
  nlohmann::json options_json = run.options;
  options_json["grid"] = row["grid"];
  Report report("stencil", options_json);
  report.add_result(row);
  report.add_note(
      "GB/s = sweeps * 2 * 8 * n^2 bytes / time / 1e9; time from a barrier before the first "
      "submit to the end of the collective wait_all, the slowest rank's (fastest of --repeat)");
  if (!cluster.empty()) report.add_note(simulated_cluster_note(cluster));
  report.add_note(
      "messages: halo strips between ranks (tiles in blocks: only the ranks' borders cross); "
      "closed form 2 * sweeps * t * (P + Q - 2) strips of n * 8 * 2 * (P + Q - 2) bytes per "
      "sweep in all (docs/stencil.md); cpu_workers: per rank");
  if (run.config.check)
    report.add_note(
        "check: the result gathered on rank 0, every cell equal to a sequential run there (no "
        "tolerance), and the messages equal to the closed form");
  emit(report, run.output, [&](std::ostream& out) { print(out, row, r); });
}

// One rank's share of the run, on its Distributed; rank 0 prints. `cluster`: the simulated
// cluster file, empty under mpirun.
void run_rank(const DistributedStencilRun& run, const st::RunConfig& config, ProcessGrid grid,
              Distributed& dist, const std::string& cluster) {
  st::DistributedConfig dc;
  dc.n = config.n;
  dc.block = config.block;
  dc.sweeps = config.sweeps;
  dc.coefficients = config.coefficients;
  dc.grid = grid;
  dc.repeat = config.repeat;
  dc.warmup = config.warmup;
  dc.check = config.check;
  st::DistributedResult r;
  {
    ProgressLine progress("stencil", run.output.quiet || dist.rank() != 0);  // rank 0 speaks
    dc.progress = progress.step_fn();
    r = st::run_distributed(dist, dc);
  }
  if (!config.trace.empty()) dist.write_trace(config.trace);

  std::vector<std::string> failures;
  if (r.checked && r.mismatches > 0)
    failures.push_back(
        fmt::format("{} cells differ from the sequential reference (largest difference {:.3e})",
                    r.mismatches, r.max_abs_diff));
  if (r.checked && !r.volume_matches())
    failures.push_back(fmt::format("{} messages / {} bytes sent, the closed form says {} / {}",
                                   r.messages, r.bytes, r.expected.messages, r.expected.bytes));
  if (dist.rank() == 0)
    report(run, result_row(config, r, grid, cluster, !failures.empty()), r, cluster);
  if (!failures.empty()) throw ValidationError("stencil: check failed: " + join(failures, "; "));
}

// What one rank holds: its block of tiles of both grids (1/R of them, one tile more per side at
// most; the strips it receives are small beside them); rank 0 with the check also the two whole
// grids gathered and the reference's two (st::validate's count on one node).
double rank_bytes(const st::RunConfig& c, ProcessGrid grid, int rank) {
  const double side = static_cast<double>(c.n);
  const double block = std::min(st::block_for(c), c.n);
  const double rows = side / grid.p + block, cols = side / grid.q + block;
  double bytes = 2 * std::min(rows, side) * std::min(cols, side) * sizeof(double);
  if (c.check && rank == 0) bytes += 4 * side * side * sizeof(double);
  return bytes;
}

void run_on_ranks(const DistributedStencilRun& run, int size) {
  ProcessGrid grid = job_grid("stencil", run.grid, size);
  st::RunConfig config = run.config;
  share_node(config.runtime);
  config.block = job_block(config.block, config.n, rank_workers(config.runtime), grid.size());
  st::validate(config, /*needs_memory=*/false);  // this rank's share is checked below
  RuntimeOptions options = config.runtime;
  options.trace = !config.trace.empty();
  Runtime rt(options);
  Distributed dist(rt);
  require_rank_memory(dist, "stencil", config.n, rank_bytes(config, grid, dist.rank()));
  run_rank(run, config, grid, dist, {});
}

}  // namespace

void run_distributed_stencil(const DistributedStencilRun& run) {
  run_on_every_rank([&](int, int size) { run_on_ranks(run, size); });
}

void run_simulated_cluster_stencil(const DistributedStencilRun& run, const std::string& cluster) {
  st::RunConfig config = run.config;
  config.runtime.trace = !config.trace.empty();
  ClusterJob job = cluster_job("stencil", cluster, run.grid, config.runtime);
  config.runtime = job.runtime;
  config.block = job_block(config.block, config.n, job.workers_per_rank, job.grid.size());
  st::validate(config, config.runtime.platform_run_kernels);
  run_on_cluster(job, [&](Distributed& dist) { run_rank(run, config, job.grid, dist, cluster); });
}

}  // namespace conveyor::cli
