#pragma once
/// STREAM-family kernels (McCalpin's Copy, Scale, Add, Triad, plus Dot) on any device.
///
/// The kernels follow the original STREAM so that values change from one iteration to the next:
///   Copy  c = a          8 B read,  8 B written per element, 0 flop
///   Scale b = s * c      8 B read,  8 B written,             1 flop
///   Add   c = a + b     16 B read,  8 B written,             1 flop
///   Triad a = b + s * c 16 B read,  8 B written,             2 flop
///   Dot   r = sum(a * b) 16 B read, 0 B written,            2 flop
/// Bytes are counted STREAM-style: stores are assumed to bypass the cache (no write-allocate
/// traffic).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/stats.hpp"

namespace conveyor {

enum class StreamKernel { Copy, Scale, Add, Triad, Dot };
inline constexpr std::array<StreamKernel, 5> kStreamKernels = {
    StreamKernel::Copy, StreamKernel::Scale, StreamKernel::Add, StreamKernel::Triad,
    StreamKernel::Dot};

struct KernelTraits {
  std::string_view name;
  int words_read;     ///< array elements read per index
  int words_written;  ///< array elements written per index
  int flops;          ///< floating-point operations per index
};
const KernelTraits& traits(StreamKernel kernel);
/// "copy", "scale", "add", "triad", "dot" (case-insensitive); throws UsageError naming the valid
/// ones.
StreamKernel parse_stream_kernel(std::string_view name);
/// Bytes one index moves, counted STREAM-style: 8 * (words read + words written), no
/// write-allocate.
inline std::uint64_t stream_bytes_per_element(StreamKernel kernel) {
  const KernelTraits& t = traits(kernel);
  return 8u * static_cast<std::uint64_t>(t.words_read + t.words_written);
}

/// The `standard` variant is plain loops as STREAM is written; `tuned` is labelled as such in every
/// result (vectorised, non-temporal stores on CPUs).
enum class StreamVariant { Standard, Tuned };
/// How CPU threads are pinned: scatter spreads over packages and NUMA nodes first, compact fills
/// one package first, none leaves placement to the OS.
enum class ThreadBinding { Scatter, Compact, None };
/// Which memory tier the CPU arrays live in: the default policy, the high-bandwidth tier
/// (HBM/MCDRAM NUMA nodes) or the ordinary DRAM nodes of a machine that has both.
enum class MemoryTier { Default, Hbm, Ddr };

std::string_view to_string(StreamVariant variant);
std::string_view to_string(ThreadBinding binding);
std::string_view to_string(MemoryTier tier);
/// "standard" / "tuned"; "scatter" / "compact" / "none"; "hbm" / "ddr". Throw UsageError otherwise.
StreamVariant parse_stream_variant(std::string_view text);
ThreadBinding parse_thread_binding(std::string_view text);
MemoryTier parse_memory_tier(std::string_view text);

struct StreamConfig {
  std::size_t elements = 0;
  int threads = 1;                                 ///< CPU only
  ThreadBinding binding = ThreadBinding::Scatter;  ///< CPU only
  StreamVariant variant = StreamVariant::Standard;
  int numa_node = -1;  ///< CPU only: bind the arrays to this NUMA node; -1 = default
  MemoryTier tier = MemoryTier::Default;  ///< CPU only; exclusive with numa_node
  bool huge_pages = true;                 ///< CPU only: 2 MiB alignment and transparent huge pages
};

/// Three arrays a, b, c of `elements` doubles on one device.
class StreamArrays {
 public:
  virtual ~StreamArrays() = default;
  /// Sets every element of a, b and c (in parallel on CPUs, so that pages are touched where they
  /// are used).
  virtual void initialize(double a, double b, double c) = 0;
  /// Runs one kernel to completion and returns its duration in seconds, measured by the device's
  /// clock where it has one (CUDA events, OpenCL profiling), else the host's steady clock around a
  /// synchronised call. For Dot, `*dot` receives sum(a[i] * b[i]); it may be null for the other
  /// kernels.
  virtual double run(StreamKernel kernel, double scalar, double* dot) = 0;
  /// Copies the arrays into host vectors (resized to `elements`) for validation.
  virtual void read_back(std::vector<double>& a, std::vector<double>& b,
                         std::vector<double>& c) = 0;
  /// The arrays in place, for devices whose arrays are host memory: validation then reads them
  /// without copying (a copy would double the memory a large run needs). Null pointers otherwise.
  struct HostView {
    const double* a = nullptr;
    const double* b = nullptr;
    const double* c = nullptr;
  };
  virtual HostView host_view() const { return {}; }
  /// Where and how the arrays live, recorded in the result (e.g. {"numa_node": 0, "huge_pages":
  /// true}).
  virtual nlohmann::json placement() const { return nlohmann::json::object(); }
};

/// How one STREAM measurement is run: which kernels, how often, and the STREAM rules.
struct StreamOptions {
  StreamConfig config;  ///< elements, threads, binding, variant, placement
  std::vector<StreamKernel> kernels{kStreamKernels.begin(), kStreamKernels.end()};
  int repeats = 20;          ///< repetitions; the first is a warm-up and is not counted (>= 2)
  double scalar = 3.0;       ///< STREAM's scalar
  bool allow_small = false;  ///< run arrays below the STREAM size rule (the result notes say so)
};

/// One kernel's figures over the counted repetitions. GB/s = 1e9 B/s.
struct StreamResult {
  std::string device;
  StreamVariant variant = StreamVariant::Standard;
  int threads = 1;
  ThreadBinding binding = ThreadBinding::Scatter;
  StreamKernel kernel = StreamKernel::Copy;
  std::size_t elements = 0;
  std::uint64_t bytes_per_iteration = 0;  ///< STREAM-style bytes of one kernel call
  TimeSummary seconds;                    ///< over repetitions 2..N
  double best_gbs = 0, median_gbs = 0, worst_gbs = 0;
  std::optional<double> percent_of_peak;  ///< best vs DeviceInfo::peak_gbs, when that is known
  bool validated = false;
  nlohmann::json placement = nlohmann::json::object();

  /// The row `conveyor plot` draws: device, variant, threads, binding, kernel, elements,
  /// bytes_per_iteration, best/median/worst_gbs, best_s, percent_of_peak (null when unknown),
  /// validated, plus the placement keys.
  nlohmann::json to_json() const;
};

struct StreamRun {
  std::vector<StreamResult> results;  ///< one per kernel, in STREAM order
  std::vector<std::string> notes;     ///< e.g. the size-rule caveat under allow_small
};

/// The smallest array length the STREAM rules accept on this device: 4x the total last-level
/// cache of the host (CPU and host-side devices) and at least 1 M elements (2^20).
std::size_t stream_min_elements(const Device& device);

/// Checks options against the STREAM rules and the device before anything runs: repeats >= 2, a
/// kernel selected, the size rule (unless allow_small), values that stay finite, and arrays that
/// fit in the device's memory (host: memory available now). Throws UsageError naming the problem.
/// Returns the notes the run will carry (the size-rule caveat under allow_small).
std::vector<std::string> check_stream_options(const Device& device, const StreamOptions& options);

/// Runs the STREAM kernels on one device: allocates and initialises the arrays, runs the selected
/// kernels in STREAM order `repeats` times, checks every Dot result and, at the end, every array
/// element against gold values replayed on scalars. Throws UsageError for options that break the
/// rules (see check_stream_options; elements == 0 picks stream_min_elements) and
/// ValidationError when a result differs from the gold values.
///
///   conveyor::StreamOptions o;
///   o.config.elements = 1 << 24;
///   o.config.threads = 4;
///   for (auto& r : conveyor::run_stream(*conveyor::find_device("cpu"), o).results)
///     std::cout << conveyor::traits(r.kernel).name << " " << r.best_gbs << " GB/s\n";
StreamRun run_stream(Device& device, const StreamOptions& options);

/// "copy,triad": comma-separated kernel names (parse_stream_kernel); UsageError for an empty one.
std::vector<StreamKernel> parse_stream_kernels(const std::string& text);

/// A stream run as `conveyor stream` and `conveyor.stream()` take it: the options as the user
/// writes them (sizes and lists as text), before they are checked. Messages name the CLI's options.
struct StreamRequest {
  std::string device = "cpu";  ///< cpu, opencl:N, cuda:N or all
  std::string threads;         ///< a list ("1-8", "1,2,4"); empty: one per core
  std::string bind = "scatter";
  std::string variant = "standard";  ///< standard, tuned or both
  std::string elements;              ///< per array (K/M/G suffixes); empty: the STREAM minimum
  std::string size;                  ///< bytes per array, instead of elements
  int repeats = 20;
  std::string kernels = "copy,scale,add,triad,dot";
  double scalar = 3.0;
  bool allow_small = false;
  int numa = -1;     ///< bind the CPU arrays to this node (-1: no binding)
  std::string tier;  ///< hbm or ddr; empty: the default tier
  bool no_huge_pages = false;
};

/// One (device, variant, thread count) run: the unit the tables and plots group by.
struct StreamPlan {
  std::shared_ptr<Device> device;
  StreamOptions options;
};

/// The runs a request asks for, each checked (check_stream_options); the checks' notes are added
/// to `notes` once each. Throws UsageError naming the bad option.
std::vector<StreamPlan> plan_stream(const StreamRequest& request, std::vector<std::string>& notes);

/// The "options" record of a stream result document (`--json-out`), from the request and its plans.
nlohmann::json stream_options_record(const StreamRequest& request,
                                     const std::vector<StreamPlan>& plans);

/// The note every stream document carries on how bytes and GB/s are counted.
extern const char* const kStreamBytesNote;

/// Checks read-back arrays against the gold values a, b, c (relative error per element; STREAM's
/// epsilon 1e-13 for doubles). Throws ValidationError naming the first bad element.
void validate_stream_arrays(std::span<const double> a, std::span<const double> b,
                            std::span<const double> c, double gold_a, double gold_b, double gold_c,
                            std::string_view where);

}  // namespace conveyor
