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
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

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

/// The `standard` variant is plain loops as STREAM is written; `tuned` is labelled as such in every
/// result (vectorised, non-temporal stores on CPUs).
enum class StreamVariant { Standard, Tuned };
/// How CPU threads are pinned: scatter spreads over packages and NUMA nodes first, compact fills
/// one package first, none leaves placement to the OS.
enum class ThreadBinding { Scatter, Compact, None };

struct StreamConfig {
  std::size_t elements = 0;
  int threads = 1;                                 ///< CPU only
  ThreadBinding binding = ThreadBinding::Scatter;  ///< CPU only
  StreamVariant variant = StreamVariant::Standard;
  int numa_node = -1;      ///< CPU only: bind the arrays to this NUMA node; -1 = default
  bool huge_pages = true;  ///< CPU only: 2 MiB alignment and transparent huge pages
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
  /// Where and how the arrays live, recorded in the result (e.g. {"numa_node": 0, "huge_pages":
  /// true}).
  virtual nlohmann::json placement() const { return nlohmann::json::object(); }
};

}  // namespace conveyor
