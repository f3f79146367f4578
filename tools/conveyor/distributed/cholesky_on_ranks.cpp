// conveyor cholesky --grid PxQ under mpirun: the tiled factorisation with 2D block-cyclic tiles,
// one runtime per rank, and the messages the ranks exchanged next to the closed form.
#include "cholesky_on_ranks.hpp"

#include <fmt/format.h>

#include <iostream>

#include "../commands.hpp"
#include "../progress_line.hpp"
#include "cholesky/cholesky_distributed.hpp"
#include "conveyor/device.hpp"
#include "conveyor/distributed.hpp"
#include "conveyor/error.hpp"
#include "conveyor/process_grid.hpp"

namespace conveyor::cli {
namespace {

namespace ch = conveyor::apps::cholesky;

void print(std::ostream& out, const nlohmann::json& row, const ch::DistributedResult& r) {
  auto counts = ch::task_counts(r.tiles);
  out << fmt::format(
      "Distributed Cholesky n = {}, block = {}: {} tiles per side, {} tasks, on {} ranks (grid {}, "
      "2D block-cyclic)\n\n",
      row["n"].get<int>(), row["block"].get<int>(), r.tiles,
      counts.potrf + counts.trsm + counts.syrk + counts.gemm, r.ranks.size(),
      row["grid"].get<std::string>());
  Table perf({"precision", "grid", "devices", "time s", "GFLOP/s", "residual", "check"});
  perf.add_row({row["precision"], row["grid"], row["devices"], fixed(r.time_s, 3),
                fixed(r.gflops, 2), r.checked ? fmt::format("{:.2e}", r.residual) : "-",
                row["check"]});
  perf.print(out);

  print_rank_table(out, r.ranks);
  out << fmt::format(
      "\nCommunication: {} messages, {:.2f} MB; closed form for block-cyclic Cholesky: {} "
      "messages, {:.2f} MB ({})\n",
      r.messages, r.bytes / 1e6, r.expected.messages, r.expected.bytes / 1e6,
      r.volume_matches() ? "equal" : "DIFFERENT");
  if (r.checked)
    out << fmt::format("Check: {} more messages gathered L on rank 0\n", r.gather_messages);
}

}  // namespace

namespace {

void run_on_ranks(const DistributedCholeskyRun& run, int size);
void run_rank(const DistributedCholeskyRun& run, const ch::RunConfig& config, ProcessGrid grid,
              Distributed& dist, const std::string& cluster);

}  // namespace

void run_simulated_cluster_cholesky(const DistributedCholeskyRun& run, const std::string& cluster) {
  ch::RunConfig config = run.config;
  config.runtime.trace = !config.trace.empty();
  ClusterJob job = cluster_job("cholesky", cluster, run.grid, config.runtime);
  config.runtime = job.runtime;
  config.block = job_block(config.block, config.n, job.workers_per_rank, job.grid.size());
  ch::validate(config);
  run_on_cluster(job, [&](Distributed& dist) { run_rank(run, config, job.grid, dist, cluster); });
}

void run_distributed_cholesky(const DistributedCholeskyRun& run) {
  run_on_every_rank([&](int, int size) { run_on_ranks(run, size); });
}

namespace {

void run_on_ranks(const DistributedCholeskyRun& run, int size) {
  ProcessGrid grid = job_grid("cholesky", run.grid, size);
  ch::RunConfig config = run.config;
  share_node(config.runtime);
  config.block = job_block(config.block, config.n, rank_workers(config.runtime), grid.size());
  ch::validate(config);
  RuntimeOptions options = config.runtime;
  options.trace = !config.trace.empty();
  Runtime rt(options);
  Distributed dist(rt);
  run_rank(run, config, grid, dist, {});
}

// Rank 0's result row; `failed`: the check found a difference.
nlohmann::json result_row(const ch::RunConfig& config, const ch::DistributedResult& r,
                          ProcessGrid grid, const std::string& cluster, bool failed) {
  return {
      {"n", config.n},
      {"block", config.block},
      {"tiles", r.tiles},
      {"precision", ch::to_string(config.precision)},
      {"grid", grid.to_string()},
      {"ranks", grid.size()},
      {"platform", cluster.empty() ? nlohmann::json(nullptr) : nlohmann::json(cluster)},
      {"simulated", !cluster.empty()},
      {"devices", rank_devices_label(config.runtime)},
      {"coherence", to_string(config.runtime.coherence)},
      {"scheduler", config.runtime.scheduler},
      {"gflops", r.gflops},
      {"time_s", r.time_s},
      {"repeat", config.repeat},
      {"messages", r.messages},
      {"bytes", r.bytes},
      {"closed_form_messages", r.expected.messages},
      {"closed_form_bytes", r.expected.bytes},
      {"gather_messages", r.gather_messages},
      {"residual", r.checked ? nlohmann::json(r.residual) : nlohmann::json(nullptr)},
      {"residual_bound", r.residual_bound},
      {"check", r.checked ? (failed ? "failed" : "passed") : "not run"},
      {"per_rank", rank_rows(r.ranks)},
  };
}

void report(const DistributedCholeskyRun& run, const nlohmann::json& row,
            const ch::DistributedResult& r, const std::string& cluster) {
  nlohmann::json options_json = run.options;
  options_json["grid"] = row["grid"];
  Report report("cholesky", options_json);
  report.add_result(row);
  report.add_note(
      "GFLOP/s = (n^3/3) / time / 1e9; time from a barrier before the first submit to the end of "
      "the collective wait_all, the slowest rank's");
  if (!cluster.empty()) report.add_note(simulated_cluster_note(cluster));
  report.add_note(
      "messages: point-to-point tile messages of the factorisation; closed form in "
      "docs/distributed.md");
  emit(report, run.output, [&](std::ostream& out) { print(out, row, r); });
}

void run_rank(const DistributedCholeskyRun& run, const ch::RunConfig& config, ProcessGrid grid,
              Distributed& dist, const std::string& cluster) {
  ch::DistributedConfig dc;
  dc.n = config.n;
  dc.block = config.block;
  dc.precision = config.precision;
  dc.grid = grid;
  dc.repeat = config.repeat;
  dc.check = config.check;
  ch::DistributedResult r;
  {
    ProgressLine progress("cholesky", run.output.quiet || dist.rank() != 0);  // rank 0 speaks
    dc.progress = progress.step_fn();
    r = ch::run_distributed(dist, dc);
  }
  if (!config.trace.empty()) dist.write_trace(config.trace);

  std::vector<std::string> failures;
  if (r.checked && !r.passed())
    failures.push_back(
        fmt::format("residual {:.3e} above the bound {:.3e}", r.residual, r.residual_bound));
  if (r.checked && !r.volume_matches())
    failures.push_back(fmt::format("{} messages / {} bytes sent, the closed form says {} / {}",
                                   r.messages, r.bytes, r.expected.messages, r.expected.bytes));
  if (dist.rank() == 0)
    report(run, result_row(config, r, grid, cluster, !failures.empty()), r, cluster);
  if (!failures.empty()) throw ValidationError("cholesky: check failed: " + join(failures, "; "));
}

}  // namespace

}  // namespace conveyor::cli
