#pragma once
/// Staged streaming (seed 000): a memory-bound kernel computes on blocks that an asynchronous
/// Mover has already staged from far memory (DRAM) into a small per-thread ring of near buffers
/// (which stay in the last-level cache), so that fewer cores keep more memory requests in flight.
///
/// Each computing thread owns one contiguous chunk of the arrays, cut into blocks of `block_bytes`
/// per input array. Its ring has `depth` slots; the mover fills slot (i + depth) % depth while the
/// thread computes block i. Outputs go straight to their destination (non-temporal stores with the
/// tuned kernels), so the ring only ever holds inputs.
///
///   conveyor::PipelineConfig config;
///   config.threads = 2;
///   conveyor::Pipeline pipeline(conveyor::make_mover("thread"), config);
///   pipeline.run(conveyor::StreamKernel::Triad, a.data(), b.data(), c.data(), n, 3.0);
///   double dot = pipeline.run(conveyor::StreamKernel::Dot, a.data(), b.data(), c.data(), n, 0);
///
///   // A user kernel, out = in0 * in1, element by element:
///   conveyor::BlockKernel mul{2, true, [](const double* x, const double* y, double* out,
///                                         std::size_t n) { for (std::size_t i = 0; i < n; ++i)
///                                           out[i] = x[i] * y[i]; return 0.0; }};
///   pipeline.run(mul, {x.data(), y.data(), out.data(), n});
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/calibration.hpp"
#include "conveyor/mover.hpp"
#include "conveyor/progress.hpp"
#include "conveyor/stream.hpp"

namespace conveyor {

/// Which inputs the mover stages. All: every input. Split (the seed's switch for many threads):
/// the CPU loads the first input itself and the mover stages only the second, halving the mover's
/// outstanding requests; a one-input kernel has every other block staged. Auto: chosen per thread
/// count and kernel by run_pipeline_sweep, from the probe's calibration where it has the staging
/// measurements, else by timing; Pipeline itself accepts All and Split only.
enum class PipelineStrategy { All, Split, Auto };
/// Auto chooses staging only when it is predicted (or timed) to beat the plain kernel by this
/// much: smaller differences are inside the run-to-run noise of a shared machine, and inside the
/// model's error.
inline constexpr double kAutoMargin = 1.03;
std::string_view to_string(PipelineStrategy strategy);
/// "all", "split", "auto"; throws UsageError otherwise.
PipelineStrategy parse_pipeline_strategy(std::string_view text);

struct PipelineConfig {
  int threads = 1;
  ThreadBinding binding = ThreadBinding::Scatter;
  std::size_t block_bytes = std::size_t{1} << 20;  ///< per staged input array and block (>= 64)
  int depth = 4;                                   ///< ring slots per thread (>= 1)
  PipelineStrategy strategy = PipelineStrategy::All;
  StreamVariant variant = StreamVariant::Tuned;  ///< kernels run on the blocks
  /// Allocates the staging rings (bytes, 64-byte aligned); returns nullptr on failure. Empty: the
  /// built-in allocator. Lets tests inject an allocation failure.
  std::function<void*(std::size_t)> allocate;
  std::function<void(void*)> release;  ///< frees what `allocate` returned
};

/// A kernel on one block: reads in0 (and in1 when inputs == 2), writes out when writes, and
/// returns a partial sum (0 for kernels without a reduction); partial sums are added up in order.
struct BlockKernel {
  int inputs = 1;
  bool writes = true;
  std::function<double(const double* in0, const double* in1, double* out, std::size_t n)> body;
};
struct BlockArrays {
  const double* in0 = nullptr;
  const double* in1 = nullptr;
  double* out = nullptr;
  std::size_t n = 0;
};

/// Measurement aid: run only the mover's copies (no compute) or only the compute on already
/// staged (stale) buffers, to split a pipelined run into T_copy and T_compute.
enum class PipelinePhase { Full, CopyOnly, ComputeOnly };

class Pipeline {
 public:
  /// Allocates the rings and the thread team. Throws UsageError for bad settings, Error when the
  /// staging buffers cannot be allocated (nothing has been written anywhere then).
  Pipeline(std::unique_ptr<Mover> mover, PipelineConfig config);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Runs a user kernel over the arrays; returns the sum of the block results. When the mover
  /// fails, every thread finishes its remaining blocks from the source arrays directly and then
  /// Error is thrown: the destination is complete, and the message says so.
  double run(const BlockKernel& kernel, const BlockArrays& arrays);
  /// Runs a STREAM kernel on arrays a, b, c of n doubles (the STREAM statements of stream.hpp);
  /// returns the dot product for Dot, else 0.
  double run(StreamKernel kernel, double* a, double* b, double* c, std::size_t n, double scalar);

  void set_phase(PipelinePhase phase) { phase_ = phase; }
  /// Of the copies the last run asked for, the share the mover delivered (the rest it dropped
  /// because it had not started them when they were needed: the thread read the source). 0 when
  /// nothing was staged.
  double staged_fraction() const;
  const PipelineConfig& config() const { return config_; }
  Mover& mover() { return *mover_; }

 private:
  struct Lane;
  void release_rings();
  void run_lane(int lane, const BlockKernel& kernel, const BlockArrays& arrays, double* partial);

  std::unique_ptr<Mover> mover_;
  PipelineConfig config_;
  PipelinePhase phase_ = PipelinePhase::Full;
  std::vector<Lane> lanes_;
  struct Team;
  std::unique_ptr<Team> team_;
};

/// The BlockKernel of a STREAM kernel, with its arrays mapped to in0/in1/out as stream.hpp
/// states them (Copy c = a: in0 a, out c; Triad a = b + s*c: in0 b, in1 c, out a; ...).
BlockKernel stream_block_kernel(StreamKernel kernel, StreamVariant variant, double scalar);
BlockArrays stream_block_arrays(StreamKernel kernel, double* a, double* b, double* c,
                                std::size_t n);

/// A staged stream through a device whose memory need not hold the arrays (GPU copy engines,
/// OpenCL queues): host arrays are copied in block by block on one queue, computed on another and
/// the outputs copied back on a third, with a ring of `depth` device (and pinned host) buffers.
struct DeviceStreamConfig {
  std::size_t block_bytes = std::size_t{8} << 20;
  int depth = 3;
};
class DeviceStream {
 public:
  virtual ~DeviceStream() = default;
  /// Runs a STREAM kernel over host arrays a, b, c of n doubles; returns the dot product for Dot.
  /// A stream may page-lock the arrays in place and keep them so until it is destroyed (CUDA
  /// does): destroy it before freeing them.
  virtual double run(StreamKernel kernel, double* a, double* b, double* c, std::size_t n,
                     double scalar) = 0;
  virtual std::string describe() const = 0;
};
/// A device stream on "opencl[:N]" or "cuda[:N]"; throws UsageError when there is no such device
/// or its backend has no staged stream.
std::unique_ptr<DeviceStream> make_device_stream(std::string_view device_id,
                                                 const DeviceStreamConfig& config);

/// `conveyor stream --pipeline`: for each thread count, CPU-only (the plain kernels on the far
/// arrays) against the pipelined run, best of `repeats`.
struct PipelineSweepOptions {
  std::string mover = "thread";  ///< a host mover, or "opencl[:N]" / "cuda[:N]"
  MoverOptions mover_options;
  std::vector<int> threads{1};
  std::vector<StreamKernel> kernels{StreamKernel::Scale, StreamKernel::Triad, StreamKernel::Dot};
  std::size_t elements = std::size_t{1} << 25;
  std::size_t block_bytes = std::size_t{1} << 20;
  int depth = 4;
  PipelineStrategy strategy = PipelineStrategy::Auto;
  ThreadBinding binding = ThreadBinding::Scatter;
  StreamVariant variant = StreamVariant::Tuned;
  int repeats = 10;
  bool overlap = true;  ///< also measure T_copy and T_compute (overlap efficiency)
  /// Strategy auto: the probe's staging measurements to predict from (load_staging_model()); empty:
  /// every row is timed.
  std::optional<StagingCalibration> staging_model;
  /// Strategy auto: time every row even where the model can predict (the rows then carry both).
  bool calibrate = false;
  ProgressFn progress;  ///< hears of each (thread count, kernel) measured (may be empty)
};

/// What `--strategy auto` reads: the calibration's staging section, or why there is none.
struct StagingModelSource {
  std::optional<StagingCalibration> staging;
  std::string origin;  ///< "FILE (measured DATE)"
  std::string note;    ///< one line when there is no model: why, and that auto times itself
};
/// Reads the probe's calibration at `path` for PipelineSweepOptions::staging_model. A missing file,
/// a schema-1 file without the staging section, a corrupt or stale file all leave `staging` empty
/// with one line in `note`; when `given` (the user named the file) a missing, corrupt or stale
/// file is a UsageError instead.
StagingModelSource load_staging_model(const std::filesystem::path& path, bool given);

/// One row of the seed's figure 5: `conveyor plot` draws rows with `pipeline` and `speedup`.
struct PipelineRow {
  int threads = 1;
  StreamKernel kernel = StreamKernel::Triad;
  std::string pipeline;  ///< "none" for CPU-only, else the mover
  std::string strategy;  ///< all | split | none (auto chose no staging) | "" for CPU-only
  double best_gbs = 0, median_gbs = 0, worst_gbs = 0, best_s = 0;
  double speedup = 1;                ///< best_gbs / CPU-only best_gbs at the same thread count
  double copy_s = 0, compute_s = 0;  ///< T_copy, T_compute (0 when not measured)
  double staged_fraction = -1;       ///< share of copies the mover delivered; -1: not staged
  bool validated = false;
  // Strategy auto only: how it decided ("model" or "timing"), the model's prediction (GB/s, 0 when
  // it could not predict) and choice, and the timed speedups of all and split (0: not timed).
  std::string decided_by;
  double predicted_plain_gbs = 0, predicted_all_gbs = 0, predicted_split_gbs = 0;
  std::string model_strategy;
  double timed_all_speedup = 0, timed_split_speedup = 0;
};
struct PipelineSweep {
  std::vector<PipelineRow> rows;
  std::vector<std::string> notes;
};
PipelineSweep run_pipeline_sweep(const PipelineSweepOptions& options);

/// `conveyor stream --pipeline` as the CLI and conveyor.pipeline() take it: the options as the
/// user writes them, before they are checked. Messages name the CLI's options. Empty text (or an
/// unset optional) keeps the pipeline's default, which differs from plain stream's.
struct PipelineRequest {
  std::string mover;  ///< --pipeline: thread, prefetch, dsa, opencl[:N], cuda[:N]
  int depth = 4;
  std::string block = "1MiB";
  std::string strategy = "auto";
  int copy_threads = 1;
  long fail_copy = 0;  ///< inject a copy failure (tests)
  bool no_overlap = false;
  bool calibrate = false;
  std::string calibration;             ///< strategy auto: the probe's file; empty: the default path
  std::string threads;                 ///< a list ("1-8", "1,2"); empty: 1
  std::string bind;                    ///< empty: scatter
  std::optional<std::string> variant;  ///< unset: tuned (non-temporal stores, the seed's method)
  std::string elements, size;          ///< one of them; both empty: 32M elements
  std::optional<std::string> kernels;  ///< unset: scale,triad,dot
  std::optional<int> repeats;          ///< unset: 10
};

/// A checked request: the sweep's options (with the staging model strategy auto predicts from)
/// and the notes on where that model came from.
struct PipelinePlan {
  PipelineSweepOptions options;
  std::vector<std::string> notes;
};
/// Throws UsageError naming the bad option (also for a named calibration file that cannot be read).
PipelinePlan plan_pipeline(const PipelineRequest& request);

/// The "options" record of a staged-stream result document (`--json-out`).
nlohmann::json pipeline_options_record(const PipelineRequest& request,
                                       const PipelineSweepOptions& options);
/// One result row: the fields of a stream row plus pipeline, strategy, speedup, block_bytes,
/// queue_depth, and the overlap and strategy-auto figures where they were measured.
nlohmann::json pipeline_row(const PipelineRow& row, const PipelineSweepOptions& options);
/// The document's notes: the plan's, the sweep's, then how speedup and overlap are counted.
std::vector<std::string> pipeline_notes(const PipelinePlan& plan, const PipelineSweep& sweep);
/// Throws ValidationError when a pipelined result differs from the plain kernel.
void check_pipeline_rows(const PipelineSweep& sweep);

}  // namespace conveyor
