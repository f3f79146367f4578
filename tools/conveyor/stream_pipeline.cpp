// conveyor stream --pipeline: CPU-only against staged streaming, one row per thread count and
// kernel (seed 000, figure 5), with the overlap efficiency of each pipelined run.
#include "stream_pipeline.hpp"

#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "conveyor/error.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/units.hpp"

namespace conveyor::cli {
namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 40;

// The device a row ran on: the CPU, or the device a device mover names ("opencl" = "opencl:0").
std::string device_of(const std::string& pipeline) {
  if (pipeline == "opencl" || pipeline == "cuda") return pipeline + ":0";
  if (pipeline.rfind("opencl:", 0) == 0 || pipeline.rfind("cuda:", 0) == 0) return pipeline;
  return "cpu";
}

nlohmann::json row_json(const PipelineRow& r, const PipelineSweepOptions& o) {
  const std::uint64_t bytes =
      8ull *
      static_cast<std::uint64_t>(traits(r.kernel).words_read + traits(r.kernel).words_written) *
      o.elements;
  nlohmann::json row = {
      {"device", device_of(r.pipeline)},
      {"variant", o.variant == StreamVariant::Tuned ? "tuned" : "standard"},
      {"threads", r.threads},
      {"binding", std::string(to_string(o.binding))},
      {"kernel", std::string(traits(r.kernel).name)},
      {"elements", o.elements},
      {"bytes_per_iteration", bytes},
      {"best_gbs", r.best_gbs},
      {"median_gbs", r.median_gbs},
      {"worst_gbs", r.worst_gbs},
      {"best_s", r.best_s},
      {"validated", r.validated},
      {"pipeline", r.pipeline},
      {"strategy", r.strategy.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.strategy)},
      {"speedup", r.speedup},
      {"block_bytes", o.block_bytes},
      {"queue_depth", o.depth}};
  if (!r.decided_by.empty()) {
    row["decided_by"] = r.decided_by;
    if (!r.model_strategy.empty()) {
      row["model_strategy"] = r.model_strategy;
      row["predicted_plain_gbs"] = r.predicted_plain_gbs;
      row["predicted_all_gbs"] = r.predicted_all_gbs;
      row["predicted_split_gbs"] = r.predicted_split_gbs;
    }
    if (r.timed_all_speedup > 0) {
      row["timed_all_speedup"] = r.timed_all_speedup;
      row["timed_split_speedup"] = r.timed_split_speedup;
    }
  }
  if (r.staged_fraction >= 0) row["staged_percent"] = 100 * r.staged_fraction;
  if (r.copy_s > 0 && r.compute_s > 0) {
    row["copy_s"] = r.copy_s;
    row["compute_s"] = r.compute_s;
  }
  if (r.copy_s > 0 && r.compute_s > 0 && r.staged_fraction >= 0.999) {
    row["overlap_efficiency"] = (r.copy_s + r.compute_s) / r.best_s;
    row["ideal_overlap"] = (r.copy_s + r.compute_s) / std::max(r.copy_s, r.compute_s);
  }
  return row;
}

}  // namespace

std::shared_ptr<StreamPipelineCli> add_stream_pipeline_options(CLI::App& command) {
  auto p = std::make_shared<StreamPipelineCli>();
  p->command = &command;
  command.add_option("--pipeline", p->mover,
                     "Staged streaming (seed 000): compare CPU-only with a mover staging blocks "
                     "into a per-thread ring: thread, prefetch, dsa, opencl[:N], cuda[:N]");
  command.add_option("--depth", p->depth, "Pipeline: ring slots per thread (default 4)");
  command.add_option("--block", p->block,
                     "Pipeline: bytes per block and input array, e.g. 256KiB (default 1MiB)");
  command.add_option("--strategy", p->strategy,
                     "Pipeline: all (stage every input), split (CPU loads src1, mover src2), "
                     "auto (default: per thread count and kernel, predicted from the probe's "
                     "calibration, else timed; may choose no staging)");
  command.add_flag("--calibrate", p->calibrate,
                   "Pipeline, strategy auto: time all and split against the plain kernel even "
                   "where the calibration can predict them (the rows then show both)");
  command
      .add_option("--calibration", p->calibration,
                  "Pipeline, strategy auto: the probe's calibration file (default "
                  "$XDG_CACHE_HOME/conveyor/calibration.json, ~/.cache/...)")
      ->option_text("FILE");
  command.add_option("--copy-threads", p->copy_threads,
                     "Pipeline, thread mover: dedicated copy threads (default 1)");
  command.add_flag("--no-overlap", p->no_overlap,
                   "Pipeline: skip the T_copy / T_compute runs of the overlap efficiency");
  command.add_option("--inject-copy-failure", p->fail_copy)->group("");  // tests only
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
  PipelineSweepOptions o;
  o.mover = p.mover;
  o.mover_options.copy_threads = p.copy_threads;
  o.mover_options.fail_copy = p.fail_copy;
  if (p.depth < 1 || p.depth > 1024)
    throw UsageError(fmt::format("--depth: must be 1..1024, not {}", p.depth));
  o.depth = p.depth;
  o.block_bytes = parse_bytes(p.block, "--block", std::uint64_t{1} << 34);
  if (o.block_bytes < 64 || o.block_bytes % 64 != 0)
    throw UsageError(fmt::format("--block: must be a multiple of 64 bytes, not {}", p.block));
  o.strategy = parse_pipeline_strategy(p.strategy);
  if ((p.calibrate || !p.calibration.empty()) && o.strategy != PipelineStrategy::Auto)
    throw UsageError("--calibrate and --calibration apply to --strategy auto");
  if (!c.elements.empty() && !c.size.empty())
    throw UsageError("--elements and --size both set the array length: give one");
  if (!c.elements.empty()) o.elements = parse_bytes(c.elements, "--elements", kMaxCount);
  if (!c.size.empty()) o.elements = parse_bytes(c.size, "--size", kMaxCount) / sizeof(double);
  if (o.elements == 0) throw UsageError("--elements: must be at least 1");
  if (!c.threads.empty()) o.threads = parse_list(c.threads, "--threads");
  if (c.kernels_given) o.kernels = parse_stream_kernels(c.kernels);
  if (!c.bind.empty()) o.binding = parse_thread_binding(c.bind);
  // Non-temporal stores are part of the seed's method: tuned unless asked otherwise.
  o.variant = c.variant_given ? parse_stream_variant(c.variant) : StreamVariant::Tuned;
  if (c.repeats_given) o.repeats = c.repeats;
  if (o.repeats < 1) throw UsageError("--repeats: must be at least 1");
  o.overlap = !p.no_overlap;
  o.calibrate = p.calibrate;
  std::vector<std::string> model_notes;
  const bool host_mover = device_of(o.mover) == "cpu";
  if (o.strategy == PipelineStrategy::Auto && host_mover) {
    const bool given = !p.calibration.empty();
    StagingModelSource source = load_staging_model(
        given ? std::filesystem::path(p.calibration) : default_calibration_path(), given);
    o.staging_model = std::move(source.staging);
    if (o.staging_model)
      model_notes.push_back(fmt::format(
          "strategy auto: {} from the model of calibration {}{}",
          o.calibrate ? "timed (--calibrate), and compared with the prediction" : "predicted",
          source.origin, o.calibrate ? "" : "; --calibrate times each row instead"));
    else
      model_notes.push_back("strategy auto: " + source.note);
  }

  PipelineSweep sweep = run_pipeline_sweep(o);

  std::string threads_text;
  for (int t : o.threads) threads_text += (threads_text.empty() ? "" : ",") + std::to_string(t);
  Report report("stream", {{"threads", threads_text},
                           {"pipeline", "none," + o.mover},
                           {"strategy", p.strategy},
                           {"calibrate", p.calibrate},
                           {"block_bytes", o.block_bytes},
                           {"queue_depth", o.depth},
                           {"elements", o.elements},
                           {"repeats", o.repeats}});
  for (const auto& r : sweep.rows) report.add_result(row_json(r, o));
  for (const auto& note : model_notes) report.add_note(note);
  for (const auto& note : sweep.notes) report.add_note(note);
  report.add_note(
      "speedup = pipelined best GB/s / CPU-only best GB/s at the same thread count; overlap = "
      "(T_copy + T_compute) / T_pipelined, ideal = (T_copy + T_compute) / max(T_copy, T_compute), "
      "shown only when the mover delivered every copy (staged 100%: a copy thread drops the copies "
      "it has not started when the computing thread needs them, and that thread reads the source)");
  if (o.strategy == PipelineStrategy::Auto && host_mover)
    report.add_note(fmt::format(
        "strategy auto keeps staging only when it is predicted or timed to beat the plain kernel "
        "by more than {:.0f}%; else the row says 'none' and the plain kernel ran",
        100 * (kAutoMargin - 1)));
  bool all_valid = true;
  for (const auto& r : sweep.rows) all_valid = all_valid && r.validated;

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
  if (!all_valid) throw ValidationError("stream pipeline: a result differs from the plain kernel");
}

}  // namespace conveyor::cli
