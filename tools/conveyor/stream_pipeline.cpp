// conveyor stream --pipeline: CPU-only against staged streaming, one row per thread count and
// kernel (seed 000, figure 5), with the overlap efficiency of each pipelined run.
#include "stream_pipeline.hpp"

#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/units.hpp"
#include "progress_line.hpp"

namespace conveyor::cli {
namespace {

// The request the plain stream options make, as given (unset where they were not).
PipelineRequest full_request(const StreamPipelineCli& p, const StreamCommonArgs& c) {
  PipelineRequest r = p.request;
  r.threads = c.threads;
  r.bind = c.bind;
  r.elements = c.elements;
  r.size = c.size;
  if (c.variant_given) r.variant = c.variant;
  if (c.kernels_given) r.kernels = c.kernels;
  if (c.repeats_given) r.repeats = c.repeats;
  return r;
}

}  // namespace

std::shared_ptr<StreamPipelineCli> add_stream_pipeline_options(CLI::App& command) {
  auto p = std::make_shared<StreamPipelineCli>();
  p->command = &command;
  command.add_option("--pipeline", p->request.mover,
                     "Staged streaming (seed 000): compare CPU-only with a mover staging blocks "
                     "into a per-thread ring: thread, prefetch, dsa, opencl[:N], cuda[:N]");
  command.add_option("--depth", p->request.depth, "Pipeline: ring slots per thread (default 4)");
  command.add_option("--block", p->request.block,
                     "Pipeline: bytes per block and input array, e.g. 256KiB (default 1MiB)");
  command.add_option("--strategy", p->request.strategy,
                     "Pipeline: all (stage every input), split (CPU loads src1, mover src2), "
                     "auto (default: per thread count and kernel, predicted from the probe's "
                     "calibration, else timed; may choose no staging)");
  command.add_flag("--calibrate", p->request.calibrate,
                   "Pipeline, strategy auto: time all and split against the plain kernel even "
                   "where the calibration can predict them (the rows then show both)");
  command
      .add_option("--calibration", p->request.calibration,
                  "Pipeline, strategy auto: the probe's calibration file (default "
                  "$XDG_CACHE_HOME/conveyor/calibration.json, ~/.cache/...)")
      ->option_text("FILE");
  command.add_option("--copy-threads", p->request.copy_threads,
                     "Pipeline, thread mover: dedicated copy threads (default 1)");
  command.add_flag("--no-overlap", p->request.no_overlap,
                   "Pipeline: skip the T_copy / T_compute runs of the overlap efficiency");
  command.add_option("--inject-copy-failure", p->request.fail_copy)->group("");  // tests only
  command.footer(
      command.get_footer() +
      "\n\nStaged streaming (--pipeline; seed 000): each thread's chunk is cut into "
      "blocks; a mover\nstages the next --depth blocks into a per-thread ring while the "
      "thread computes the current\none. One row per thread count and kernel: CPU-only "
      "vs pipelined GB/s, speedup, strategy,\nand the overlap efficiency (T_copy + "
      "T_compute) / T_pipelined against its ideal. Defaults:\nkernels scale,triad,dot, "
      "tuned variant (non-temporal stores), 32M elements, best of 10.\n"
      "--strategy auto predicts plain, all and split from what 'conveyor probe' measured (the\n"
      "plain kernels per thread count, the mover's copy rate); without those measurements, or\n"
      "with --calibrate, it times 3 alternating runs of each. The notes say what it chose and "
      "why.\n"
      "  conveyor stream --pipeline thread --threads 1-2\n"
      "  conveyor stream --pipeline thread --threads 1-2 --calibrate   (auto times, and shows "
      "the model's choice too)\n"
      "  conveyor stream --pipeline prefetch --depth 2 --block 256KiB --threads 1\n"
      "  conveyor stream --pipeline dsa --strategy split --threads 1-8   (Xeon with DSA)\n"
      "  conveyor stream --pipeline opencl:0 --threads 1,2 --json-out p.json; conveyor "
      "plot p.json -o p.png");
  return p;
}

void run_stream_pipeline(const StreamPipelineCli& p, const StreamCommonArgs& c) {
  if (p.command)
    for (const char* option :
         {"--device", "--numa", "--tier", "--allow-small", "--scalar", "--no-huge-pages"})
      if (p.command->get_option_no_throw(option) && p.command->count(option) > 0)
        throw UsageError(
            fmt::format("{} does not apply with --pipeline (devices: --pipeline "
                        "opencl:N or cuda:N)",
                        option));
  const PipelineRequest request = full_request(p, c);
  const PipelinePlan plan = plan_pipeline(request);
  PipelineSweepOptions o = plan.options;
  PipelineSweep sweep;
  {
    ProgressLine progress("stream --pipeline", c.output.quiet);
    o.progress = progress.step_fn(o.mover);
    sweep = run_pipeline_sweep(o);
  }

  Report report("stream", pipeline_options_record(request, o));
  for (const auto& r : sweep.rows) report.add_result(pipeline_row(r, o));
  for (const auto& note : pipeline_notes(plan, sweep)) report.add_note(note);

  emit(report, c.output, [&](std::ostream& out) {
    out << fmt::format(
        "STREAM pipeline: mover {}, block {} B, depth {}, {} elements per array, "
        "GB/s = 1e9 B/s (best of {})\n",
        o.mover, o.block_bytes, o.depth, o.elements, o.repeats);
    Table table({"threads", "kernel", "CPU-only GB/s", "pipelined GB/s", "speedup", "strategy",
                 "staged %", "T_copy ms", "T_compute ms", "overlap", "ideal"});
    const PipelineRow* cpu = nullptr;
    for (const auto& r : sweep.rows) {
      if (r.pipeline == "none") {
        cpu = &r;
        continue;
      }
      const bool timed = r.copy_s > 0 && r.compute_s > 0;
      // Overlap compares with T_copy of every block; it means nothing when the mover dropped some.
      const bool whole = timed && r.staged_fraction >= 0.999;
      table.add_row(
          {std::to_string(r.threads), std::string(traits(r.kernel).name),
           cpu ? fixed(cpu->best_gbs, 2) : "-", fixed(r.best_gbs, 2), fixed(r.speedup, 2) + "x",
           r.strategy, r.staged_fraction >= 0 ? fixed(100 * r.staged_fraction, 0) : "-",
           timed ? fixed(r.copy_s * 1e3, 2) : "-", timed ? fixed(r.compute_s * 1e3, 2) : "-",
           whole ? fixed((r.copy_s + r.compute_s) / r.best_s, 2) : "-",
           whole ? fixed((r.copy_s + r.compute_s) / std::max(r.copy_s, r.compute_s), 2) : "-"});
    }
    table.print(out);
  });
  check_pipeline_rows(sweep);
}

}  // namespace conveyor::cli
