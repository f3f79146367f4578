// The device-independent STREAM driver: the size rule, the repetitions, the timing summary and the
// check against gold values. Devices only allocate, initialise and run one kernel at a time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/records.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"
#include "stream/gold.hpp"

namespace conveyor {
namespace {

constexpr std::size_t kMinElements = std::size_t{1} << 20;  // STREAM's 1 M floor
// Below this a time is mostly clock resolution and call overhead.
constexpr double kMinSeconds = 1e-9;

// The last-level cache the arrays must overflow: the host's for the CPU and for OpenCL CPU
// devices, the L2 for CUDA devices (they report it), unknown (0) otherwise.
std::uint64_t device_llc_bytes(const Device& device) {
  const DeviceInfo& info = device.info();
  if (info.kind == DeviceKind::Cpu) return host_topology().llc_total_bytes;
  const auto details = device_details(info);
  if (details.contains("l2_bytes") && details["l2_bytes"].is_number())
    return details["l2_bytes"].get<std::uint64_t>();
  if (details.contains("device_type") && details["device_type"].is_string() &&
      details["device_type"].get<std::string>().find("CPU") != std::string::npos)
    return host_topology().llc_total_bytes;
  return 0;
}

std::vector<StreamKernel> canonical_kernels(const std::vector<StreamKernel>& kernels) {
  std::vector<StreamKernel> out;
  for (StreamKernel k : kStreamKernels)
    if (std::find(kernels.begin(), kernels.end(), k) != kernels.end()) out.push_back(k);
  return out;
}

// Replays the whole run on scalars first: values grow by about scalar * (2 + scalar) per
// repetition and must stay finite (Dot squares them).
void check_no_overflow(const std::vector<StreamKernel>& kernels, const StreamOptions& o,
                       std::size_t n) {
  stream::Gold gold;
  for (int rep = 0; rep < o.repeats; ++rep)
    for (StreamKernel k : kernels) {
      double dot = gold.apply(k, o.scalar, n);
      if (!std::isfinite(gold.a) || !std::isfinite(gold.b) || !std::isfinite(gold.c) ||
          !std::isfinite(dot))
        throw UsageError(fmt::format(
            "--repeats {} with --scalar {:g}: the STREAM values overflow a double after {} "
            "repetitions; use fewer repetitions or a smaller scalar",
            o.repeats, o.scalar, rep + 1));
    }
}

}  // namespace

std::size_t stream_min_elements(const Device& device) {
  std::uint64_t llc = device_llc_bytes(device);
  std::uint64_t by_cache = (4 * llc + sizeof(double) - 1) / sizeof(double);
  return std::max<std::size_t>(kMinElements, by_cache);
}

nlohmann::json StreamResult::to_json() const {
  nlohmann::json row = {{"device", device},
                        {"variant", std::string(to_string(variant))},
                        {"threads", threads},
                        {"binding", std::string(to_string(binding))},
                        {"kernel", std::string(traits(kernel).name)},
                        {"elements", elements},
                        {"bytes_per_iteration", bytes_per_iteration},
                        {"best_gbs", best_gbs},
                        {"median_gbs", median_gbs},
                        {"worst_gbs", worst_gbs},
                        {"best_s", seconds.best},
                        {"median_s", seconds.median},
                        {"worst_s", seconds.worst},
                        {"repetitions_counted", seconds.count},
                        {"percent_of_peak", nullptr},
                        {"validated", validated}};
  if (percent_of_peak) row["percent_of_peak"] = *percent_of_peak;
  for (const auto& [key, value] : placement.items())
    if (!row.contains(key)) row[key] = value;
  return row;
}

std::vector<std::string> check_stream_options(const Device& device, const StreamOptions& o) {
  const DeviceInfo& info = device.info();
  if (o.repeats < 2)
    throw UsageError(fmt::format(
        "--repeats: {} is too few; STREAM drops the first repetition, so at least 2 are needed",
        o.repeats));
  std::vector<StreamKernel> kernels = canonical_kernels(o.kernels);
  if (kernels.empty()) throw UsageError("--kernels: no kernel selected");
  if (!std::isfinite(o.scalar)) throw UsageError("--scalar: must be a finite number");

  std::vector<std::string> notes;
  const std::size_t min_elements = stream_min_elements(device);
  const std::size_t n = o.config.elements == 0 ? min_elements : o.config.elements;
  if (n < min_elements) {
    std::string rule = fmt::format(
        "{} elements per array ({}) is below the STREAM size rule for {}: at least {} elements "
        "(4x the {} last-level cache, and 1 M or more)",
        n, format_bytes(n * sizeof(double)), info.id, min_elements,
        format_bytes(device_llc_bytes(device)));
    if (!o.allow_small) throw UsageError(rule + "; --allow-small runs it anyway");
    notes.push_back(rule + "; run with --allow-small, so caches may inflate the figures");
  }
  // Device arrays are read back into host memory for validation, so the host must hold them too.
  const std::uint64_t host = available_memory_bytes();
  const bool is_cpu = info.kind == DeviceKind::Cpu;
  const std::uint64_t room = is_cpu ? host : std::min<std::uint64_t>(info.memory_bytes, host);
  if (n > room / (3 * sizeof(double)))
    throw UsageError(fmt::format(
        "{} elements per array do not fit {}: 3 arrays need {} but {}", n, info.id,
        n > UINT64_MAX / 24 ? std::string("more than 16 EiB")
                            : format_bytes(3 * n * sizeof(double)),
        is_cpu ? fmt::format("only {} of memory is available", format_bytes(host))
               : fmt::format("the device has {} and the host {} available to read them back",
                             format_bytes(info.memory_bytes), format_bytes(host))));
  check_no_overflow(kernels, o, n);
  return notes;
}

StreamRun run_stream(Device& device, const StreamOptions& o) {
  const DeviceInfo& info = device.info();
  const bool is_cpu = info.kind == DeviceKind::Cpu;
  StreamRun run;
  run.notes = check_stream_options(device, o);
  std::vector<StreamKernel> kernels = canonical_kernels(o.kernels);
  StreamConfig config = o.config;
  if (config.elements == 0) config.elements = stream_min_elements(device);

  std::unique_ptr<StreamArrays> arrays = device.make_stream_arrays(config);
  stream::Gold gold;
  arrays->initialize(gold.a, gold.b, gold.c);

  std::vector<std::vector<double>> times(kernels.size());
  for (auto& t : times) t.reserve(o.repeats);
  const std::string where = fmt::format("{} {} {} thread{}", info.id, to_string(config.variant),
                                        config.threads, config.threads == 1 ? "" : "s");
  for (int rep = 0; rep < o.repeats; ++rep) {
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      double dot = 0;
      double seconds = arrays->run(kernels[k], o.scalar, &dot);
      if (rep > 0) times[k].push_back(std::max(seconds, kMinSeconds));
      double expected = gold.apply(kernels[k], o.scalar, config.elements);
      if (kernels[k] == StreamKernel::Dot &&
          !stream::within(dot, expected, stream::dot_epsilon(config.elements)))
        throw ValidationError(fmt::format(
            "{}: dot failed validation in repetition {}: {:.17g}, expected {:.17g} (relative "
            "tolerance {:g})",
            where, rep + 1, dot, expected, stream::dot_epsilon(config.elements)));
    }
  }
  if (StreamArrays::HostView view = arrays->host_view(); view.a && view.b && view.c) {
    const std::size_t n = config.elements;
    validate_stream_arrays({view.a, n}, {view.b, n}, {view.c, n}, gold.a, gold.b, gold.c, where);
  } else {
    std::vector<double> a, b, c;
    arrays->read_back(a, b, c);
    validate_stream_arrays(a, b, c, gold.a, gold.b, gold.c, where);
  }

  nlohmann::json placement = arrays->placement();
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    StreamResult r;
    r.device = info.id;
    r.variant = config.variant;
    r.threads = is_cpu ? config.threads : 1;
    r.binding = is_cpu ? config.binding : ThreadBinding::None;
    r.kernel = kernels[k];
    r.elements = config.elements;
    r.bytes_per_iteration = stream_bytes_per_element(kernels[k]) * config.elements;
    r.seconds = summarize(times[k]);
    const double bytes = static_cast<double>(r.bytes_per_iteration);
    r.best_gbs = bytes / r.seconds.best / 1e9;
    r.median_gbs = bytes / r.seconds.median / 1e9;
    r.worst_gbs = bytes / r.seconds.worst / 1e9;
    if (info.peak_gbs > 0) r.percent_of_peak = 100.0 * r.best_gbs / info.peak_gbs;
    r.validated = true;
    r.placement = placement;
    run.results.push_back(std::move(r));
  }
  return run;
}

}  // namespace conveyor
