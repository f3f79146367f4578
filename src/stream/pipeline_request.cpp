// From the options a user gives `conveyor stream --pipeline` (or conveyor.pipeline() in Python) to
// the staged-stream sweep, and from its rows to the result document: one implementation for both.
#include <fmt/format.h>

#include <algorithm>

#include "conveyor/calibration.hpp"
#include "conveyor/error.hpp"
#include "conveyor/pipeline.hpp"
#include "conveyor/units.hpp"

namespace conveyor {
namespace {

constexpr std::uint64_t kMaxPipelineCount = std::uint64_t{1} << 40;

// The device a row ran on: the CPU, or the device a device mover names ("opencl" = "opencl:0").
std::string device_of(const std::string& mover) {
  if (mover == "opencl" || mover == "cuda") return mover + ":0";
  if (mover.rfind("opencl:", 0) == 0 || mover.rfind("cuda:", 0) == 0) return mover;
  return "cpu";
}

bool host_auto(const PipelineSweepOptions& o) {
  return o.strategy == PipelineStrategy::Auto && device_of(o.mover) == "cpu";
}

// The ring, the blocks and the mover.
void plan_staging(const PipelineRequest& r, PipelineSweepOptions& o) {
  o.mover = r.mover;
  o.mover_options.copy_threads = r.copy_threads;
  o.mover_options.fail_copy = r.fail_copy;
  if (r.depth < 1 || r.depth > 1024)
    throw UsageError(fmt::format("--depth: must be 1..1024, not {}", r.depth));
  o.depth = r.depth;
  o.block_bytes = parse_bytes(r.block, "--block", std::uint64_t{1} << 34);
  if (o.block_bytes < 64 || o.block_bytes % 64 != 0)
    throw UsageError(fmt::format("--block: must be a multiple of 64 bytes, not {}", r.block));
  o.strategy = parse_pipeline_strategy(r.strategy);
  if ((r.calibrate || !r.calibration.empty()) && o.strategy != PipelineStrategy::Auto)
    throw UsageError("--calibrate and --calibration apply to --strategy auto");
}

// What it shares with plain stream: sizes, threads, kernels, binding, variant, repetitions.
void plan_stream_part(const PipelineRequest& r, PipelineSweepOptions& o) {
  if (!r.elements.empty() && !r.size.empty())
    throw UsageError("--elements and --size both set the array length: give one");
  if (!r.elements.empty()) o.elements = parse_bytes(r.elements, "--elements", kMaxPipelineCount);
  if (!r.size.empty())
    o.elements = parse_bytes(r.size, "--size", kMaxPipelineCount) / sizeof(double);
  if (o.elements == 0) throw UsageError("--elements: must be at least 1");
  if (!r.threads.empty()) o.threads = parse_list(r.threads, "--threads");
  if (r.kernels) o.kernels = parse_stream_kernels(*r.kernels);
  if (!r.bind.empty()) o.binding = parse_thread_binding(r.bind);
  // Non-temporal stores are part of the seed's method: tuned unless asked otherwise.
  o.variant = r.variant ? parse_stream_variant(*r.variant) : StreamVariant::Tuned;
  if (r.repeats) o.repeats = *r.repeats;
  if (o.repeats < 1) throw UsageError("--repeats: must be at least 1");
  o.overlap = !r.no_overlap;
  o.calibrate = r.calibrate;
}

}  // namespace

PipelinePlan plan_pipeline(const PipelineRequest& r) {
  PipelinePlan plan;
  PipelineSweepOptions& o = plan.options;
  plan_staging(r, o);
  plan_stream_part(r, o);
  if (!host_auto(o)) return plan;
  const bool given = !r.calibration.empty();
  StagingModelSource source = load_staging_model(
      given ? std::filesystem::path(r.calibration) : default_calibration_path(), given);
  o.staging_model = std::move(source.staging);
  if (o.staging_model)
    plan.notes.push_back(fmt::format(
        "strategy auto: {} from the model of calibration {}{}",
        o.calibrate ? "timed (--calibrate), and compared with the prediction" : "predicted",
        source.origin, o.calibrate ? "" : "; --calibrate times each row instead"));
  else
    plan.notes.push_back("strategy auto: " + source.note);
  return plan;
}

nlohmann::json pipeline_options_record(const PipelineRequest& r, const PipelineSweepOptions& o) {
  std::string threads;
  for (int t : o.threads) {
    if (!threads.empty()) threads += ',';
    threads += std::to_string(t);
  }
  return {{"threads", threads},       {"pipeline", "none," + o.mover}, {"strategy", r.strategy},
          {"calibrate", r.calibrate}, {"block_bytes", o.block_bytes},  {"queue_depth", o.depth},
          {"elements", o.elements},   {"repeats", o.repeats}};
}

nlohmann::json pipeline_row(const PipelineRow& r, const PipelineSweepOptions& o) {
  nlohmann::json row = {
      {"device", device_of(r.pipeline)},
      {"variant", o.variant == StreamVariant::Tuned ? "tuned" : "standard"},
      {"threads", r.threads},
      {"binding", std::string(to_string(o.binding))},
      {"kernel", std::string(traits(r.kernel).name)},
      {"elements", o.elements},
      {"bytes_per_iteration", stream_bytes_per_element(r.kernel) * o.elements},
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

std::vector<std::string> pipeline_notes(const PipelinePlan& plan, const PipelineSweep& sweep) {
  std::vector<std::string> notes = plan.notes;
  notes.insert(notes.end(), sweep.notes.begin(), sweep.notes.end());
  notes.push_back(
      "speedup = pipelined best GB/s / CPU-only best GB/s at the same thread count; overlap = "
      "(T_copy + T_compute) / T_pipelined, ideal = (T_copy + T_compute) / max(T_copy, T_compute), "
      "shown only when the mover delivered every copy (staged 100%: a copy thread drops the copies "
      "it has not started when the computing thread needs them, and that thread reads the source)");
  if (host_auto(plan.options))
    notes.push_back(fmt::format(
        "strategy auto keeps staging only when it is predicted or timed to beat the plain kernel "
        "by more than {:.0f}%; else the row says 'none' and the plain kernel ran",
        100 * (kAutoMargin - 1)));
  return notes;
}

void check_pipeline_rows(const PipelineSweep& sweep) {
  for (const auto& r : sweep.rows)
    if (!r.validated)
      throw ValidationError("stream pipeline: a result differs from the plain kernel");
}

}  // namespace conveyor
