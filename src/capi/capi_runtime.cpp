// Runtime life cycle, waiting, ranges and statistics of the C interface.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "build_info.hpp"
#include "capi/handles.hpp"
#include "capi/host_tasklet.hpp"
#include "capi/status.hpp"
#include "conveyor/device.hpp"

using conveyor::capi::CapiError;
using conveyor::capi::guard;
using conveyor::capi::require;

namespace {

/// "a, b,c" -> {"a", "b", "c"}; NULL or "" -> {}.
std::vector<std::string> split_list(const char* text) {
  std::vector<std::string> items;
  if (text == nullptr) return items;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return items;
}

conveyor::RuntimeOptions to_runtime_options(const conveyor_options& o) {
  conveyor::RuntimeOptions options;
  require(o.cpus >= -1, "options.cpus must be -1 (one per core), 0 or more");
  require(o.device_tasks_in_flight >= 1 || o.device_tasks_in_flight == -1,
          "options.device_tasks_in_flight must be at least 1, or -1 (the default by device count)");
  options.cpus = o.cpus;
  options.pin = o.pin != 0;
  options.devices = split_list(o.devices);
  if (o.scheduler != nullptr && *o.scheduler != '\0') options.scheduler = o.scheduler;
  options.offload = split_list(o.offload);
  if (o.coherence != nullptr && *o.coherence != '\0')
    options.coherence = conveyor::parse_coherence(o.coherence);
  if (o.device_copy != nullptr && *o.device_copy != '\0')
    options.device_copy = conveyor::parse_device_copy(o.device_copy);
  options.device_tasks_in_flight = o.device_tasks_in_flight;
  options.device_memory_limit = o.device_memory_limit;
  return options;
}

}  // namespace

conveyor_runtime::conveyor_runtime(conveyor::RuntimeOptions options)
    : host_codelet(conveyor::capi::make_host_codelet()), runtime(std::move(options)) {}

conveyor_runtime::~conveyor_runtime() = default;

extern "C" {

const char* conveyor_version(void) { return conveyor::kConveyorVersion.data(); }

const char* conveyor_device_list(void) {
  // Computed once: the devices do not change while the process runs (backends() is cached too).
  static const std::string list = [] {
    std::string ids;
    try {
      for (const auto& device : conveyor::all_devices())
        ids += (ids.empty() ? "" : ",") + device->info().id;
    } catch (...) {
      ids = "cpu";
    }
    return ids;
  }();
  return list.c_str();
}

void conveyor_options_init(conveyor_options* options) {
  if (options == nullptr) return;
  std::memset(options, 0, sizeof *options);
  options->cpus = -1;
  options->pin = 1;
  options->device_tasks_in_flight = conveyor::RuntimeOptions{}.device_tasks_in_flight;
}

conveyor_runtime* conveyor_runtime_create(const conveyor_options* options) {
  conveyor_runtime* created = nullptr;
  guard("conveyor_runtime_create", CONVEYOR_ERROR_INTERNAL, [&] {
    conveyor_options defaults;
    conveyor_options_init(&defaults);
    created = new conveyor_runtime(to_runtime_options(options ? *options : defaults));
  });
  return created;
}

void conveyor_runtime_destroy(conveyor_runtime* runtime) {
  guard("conveyor_runtime_destroy", CONVEYOR_ERROR_INTERNAL, [&] { delete runtime; });
}

conveyor_status conveyor_wait(conveyor_runtime* runtime) {
  return guard("conveyor_wait", CONVEYOR_ERROR_TASK_FAILED, [&] {
    require(runtime != nullptr, "runtime is NULL");
    // Taken before waiting: every tasklet whose payload is in this batch was submitted before
    // the wait began, so it has finished (or was cancelled) when wait_all returns or throws.
    auto finished = runtime->payloads.take_all();
    runtime->runtime.wait_all();
  });
}

conveyor_status conveyor_register(conveyor_runtime* runtime, void* ptr, size_t size) {
  return guard("conveyor_register", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(ptr != nullptr, "ptr is NULL");
    runtime->ranges.map(runtime->runtime, ptr, size);
  });
}

conveyor_status conveyor_unregister(conveyor_runtime* runtime, void* ptr) {
  return guard("conveyor_unregister", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    conveyor::Data data = runtime->ranges.take(ptr);
    runtime->runtime.unregister(data);
  });
}

conveyor_status conveyor_discard(conveyor_runtime* runtime, void* ptr) {
  return guard("conveyor_discard", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    runtime->runtime.discard(runtime->ranges.find(ptr));
  });
}

conveyor_status conveyor_get_stats(conveyor_runtime* runtime, conveyor_stats* stats) {
  return guard("conveyor_get_stats", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(stats != nullptr, "stats is NULL");
    conveyor::RuntimeStats s = runtime->runtime.stats();
    *stats = conveyor_stats{s.h2d_copies, s.h2d_bytes, s.d2h_copies,         s.d2h_bytes,
                            s.d2d_copies, s.d2d_bytes, s.device_allocations, s.tasks};
  });
}

conveyor_status conveyor_reset_stats(conveyor_runtime* runtime) {
  return guard("conveyor_reset_stats", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    runtime->runtime.reset_stats();
  });
}

}  // extern "C"
