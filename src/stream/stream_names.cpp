// Names of the STREAM kernels, variants, bindings and tiers, and their parsers.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "conveyor/error.hpp"
#include "conveyor/stream.hpp"

namespace conveyor {
namespace {

constexpr std::array<KernelTraits, 5> kTraits = {{
    {"copy", 1, 1, 0},
    {"scale", 1, 1, 1},
    {"add", 2, 1, 1},
    {"triad", 2, 1, 2},
    {"dot", 2, 0, 2},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

// Finds `text` among `names` (case-insensitive) or throws a UsageError listing them.
template <typename Enum, std::size_t N>
Enum parse_named(std::string_view text, std::string_view what,
                 const std::array<std::pair<std::string_view, Enum>, N>& names) {
  std::string key = lower(text);
  std::string valid;
  for (const auto& [name, value] : names) {
    if (key == name) return value;
    valid += valid.empty() ? "" : ", ";
    valid += name;
  }
  throw UsageError(fmt::format("{}: unknown value '{}' (valid: {})", what, text, valid));
}

}  // namespace

const KernelTraits& traits(StreamKernel kernel) { return kTraits[static_cast<int>(kernel)]; }

StreamKernel parse_stream_kernel(std::string_view name) {
  return parse_named<StreamKernel, 5>(name, "--kernels",
                                      {{{"copy", StreamKernel::Copy},
                                        {"scale", StreamKernel::Scale},
                                        {"add", StreamKernel::Add},
                                        {"triad", StreamKernel::Triad},
                                        {"dot", StreamKernel::Dot}}});
}

std::string_view to_string(StreamVariant variant) {
  return variant == StreamVariant::Tuned ? "tuned" : "standard";
}

std::string_view to_string(ThreadBinding binding) {
  switch (binding) {
    case ThreadBinding::Scatter:
      return "scatter";
    case ThreadBinding::Compact:
      return "compact";
    case ThreadBinding::None:
      return "none";
  }
  return "?";
}

std::string_view to_string(MemoryTier tier) {
  switch (tier) {
    case MemoryTier::Default:
      return "default";
    case MemoryTier::Hbm:
      return "hbm";
    case MemoryTier::Ddr:
      return "ddr";
  }
  return "?";
}

StreamVariant parse_stream_variant(std::string_view text) {
  return parse_named<StreamVariant, 2>(
      text, "--variant",
      {{{"standard", StreamVariant::Standard}, {"tuned", StreamVariant::Tuned}}});
}

ThreadBinding parse_thread_binding(std::string_view text) {
  return parse_named<ThreadBinding, 3>(text, "--bind",
                                       {{{"scatter", ThreadBinding::Scatter},
                                         {"compact", ThreadBinding::Compact},
                                         {"none", ThreadBinding::None}}});
}

MemoryTier parse_memory_tier(std::string_view text) {
  return parse_named<MemoryTier, 2>(text, "--tier",
                                    {{{"hbm", MemoryTier::Hbm}, {"ddr", MemoryTier::Ddr}}});
}

}  // namespace conveyor
