// From the options a user gives `conveyor stream` (or conveyor.stream() in Python) to the runs:
// one per device, variant and thread count, each checked against the STREAM rules.
#include <fmt/format.h>

#include <algorithm>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"
#include "conveyor/topology.hpp"
#include "conveyor/units.hpp"

namespace conveyor {
namespace {

constexpr std::uint64_t kMaxStreamCount = std::uint64_t{1} << 60;

int hardware_threads() {
  int n = 0;
  for (const auto& core : host_topology().cores) n += static_cast<int>(core.pus.size());
  return n;
}

// What every run shares: sizes, kernels, binding and placement.
StreamOptions base_options(const StreamRequest& r) {
  StreamOptions base;
  if (!r.elements.empty() && !r.size.empty())
    throw UsageError("--elements and --size both set the array length: give one");
  if (r.numa >= 0 && !r.tier.empty()) throw UsageError("--numa and --tier exclude each other");
  if (!r.elements.empty()) {
    base.config.elements = parse_bytes(r.elements, "--elements", kMaxStreamCount);
    if (base.config.elements == 0) throw UsageError("--elements: must be at least 1");
  } else if (!r.size.empty()) {
    std::uint64_t bytes = parse_bytes(r.size, "--size", kMaxStreamCount);
    if (bytes < sizeof(double))
      throw UsageError(fmt::format("--size: {} is less than one double (8 bytes)", r.size));
    base.config.elements = bytes / sizeof(double);
  }
  base.repeats = r.repeats;
  base.kernels = parse_stream_kernels(r.kernels);
  base.scalar = r.scalar;
  base.allow_small = r.allow_small;
  base.config.binding = parse_thread_binding(r.bind);
  base.config.numa_node = r.numa;
  base.config.tier = r.tier.empty() ? MemoryTier::Default : parse_memory_tier(r.tier);
  base.config.huge_pages = !r.no_huge_pages;
  return base;
}

}  // namespace

std::vector<StreamKernel> parse_stream_kernels(const std::string& text) {
  std::vector<StreamKernel> kernels;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = std::min(text.find(',', start), text.size());
    std::string name = text.substr(start, comma - start);
    if (name.empty()) throw UsageError(fmt::format("--kernels: empty name in '{}'", text));
    kernels.push_back(parse_stream_kernel(name));
    start = comma + 1;
  }
  return kernels;
}

const char* const kStreamBytesNote =
    "GB/s = 1e9 B/s; bytes counted STREAM-style (no write-allocate): copy 16, scale 16, add 24, "
    "triad 24, dot 16 B per element";

std::vector<StreamPlan> plan_stream(const StreamRequest& r, std::vector<std::string>& notes) {
  const StreamOptions base = base_options(r);
  std::vector<StreamVariant> variants;
  if (r.variant == "both")
    variants = {StreamVariant::Standard, StreamVariant::Tuned};
  else
    variants = {parse_stream_variant(r.variant)};

  const int cores = static_cast<int>(host_topology().cores.size());
  std::vector<int> threads =
      r.threads.empty() ? std::vector<int>{cores} : parse_list(r.threads, "--threads");
  for (int t : threads)
    if (t > hardware_threads())
      throw UsageError(fmt::format("--threads: {} is more than the {} hardware threads here", t,
                                   hardware_threads()));

  std::vector<StreamPlan> plans;
  const auto devices = r.device == "all" ? all_devices() : std::vector{find_device(r.device)};
  for (const auto& device : devices) {
    const bool cpu = device->info().kind == DeviceKind::Cpu;
    if (!cpu && (r.numa >= 0 || !r.tier.empty()) && r.device != "all")
      throw UsageError(fmt::format("--numa and --tier place host arrays; {} keeps its own memory",
                                   device->info().id));
    for (StreamVariant variant : variants) {
      // OpenCL has one kernel set; a "tuned" row would repeat the standard one under another name.
      if (device->info().kind == DeviceKind::OpenCL && variant == StreamVariant::Tuned) {
        notes.push_back(fmt::format("{} has no tuned variant; {}", device->info().id,
                                    variants.size() > 1 ? "only standard was run" : "skipped"));
        continue;
      }
      for (int t : cpu ? threads : std::vector<int>{1}) {
        StreamPlan plan{device, base};
        plan.options.config.variant = variant;
        plan.options.config.threads = t;
        if (plan.options.config.elements == 0)
          plan.options.config.elements = stream_min_elements(*device);
        if (!cpu) {
          plan.options.config.numa_node = -1;
          plan.options.config.tier = MemoryTier::Default;
        }
        for (auto& note : check_stream_options(*device, plan.options))
          if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
        plans.push_back(std::move(plan));
      }
    }
  }
  if (plans.empty())
    throw UsageError(fmt::format("--variant {}: {} has no tuned variant; use --variant standard",
                                 r.variant, r.device));
  return plans;
}

nlohmann::json stream_options_record(const StreamRequest& r, const std::vector<StreamPlan>& plans) {
  return {{"device", r.device},
          {"threads", r.threads.empty() ? std::to_string(host_topology().cores.size()) : r.threads},
          {"binding", r.bind},
          {"variant", r.variant},
          {"elements", plans.empty() ? 0 : plans.front().options.config.elements},
          {"repeats", r.repeats},
          {"kernels", r.kernels},
          {"scalar", r.scalar},
          {"allow_small", r.allow_small},
          {"numa", r.numa},
          {"tier", r.tier.empty() ? "default" : r.tier},
          {"huge_pages", !r.no_huge_pages}};
}

}  // namespace conveyor
