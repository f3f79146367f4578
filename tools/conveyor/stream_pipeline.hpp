#pragma once
// `conveyor stream --pipeline MOVER`: the options of staged streaming and the run that prints the
// seed-000 figure-5 table. stream_command.cpp adds the options and hands over on --pipeline.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "conveyor/pipeline.hpp"
#include "report.hpp"

namespace conveyor::cli {

struct StreamPipelineCli {
  PipelineRequest request;      // the pipeline's own options; request.mover empty: no pipeline
  CLI::App* command = nullptr;  // to reject plain-stream options that do not apply
};

/// Adds --pipeline, --depth, --block, --strategy, --calibrate, --calibration, --copy-threads,
/// --no-overlap to `stream`.
std::shared_ptr<StreamPipelineCli> add_stream_pipeline_options(CLI::App& command);

/// What the pipeline run takes from the plain stream options (their text, as given).
struct StreamCommonArgs {
  std::string threads, bind, variant, elements, size, kernels;
  int repeats = 10;
  bool repeats_given = false;
  bool kernels_given = false;
  bool variant_given = false;
  OutputOptions output;
};
void run_stream_pipeline(const StreamPipelineCli& pipeline, const StreamCommonArgs& common);

}  // namespace conveyor::cli
