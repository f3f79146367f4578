// Feeds: any text as the value of `conveyor cholesky --devices LIST`, parsed as the CLI parses it
// (CLI11, split at commas), then what the tool does with it (tools/conveyor/cholesky_command.cpp,
// workers_of): "cpu" and "cpu:0" taken out as the CPU workers, the rest given to the library's
// expand_devices (src/runtime/runtime_options.cpp), whose devices the runtime then opens with
// find_device (src/backends/backend_registry.cpp).
// A bug: a crash or sanitizer report; a rejection that is not UsageError (or CLI11's own
// ParseError); an expansion that names a device twice, names "all" or "cpu", drops or reorders a
// device that was asked for, or adds one that is not a device of this machine; find_device
// returning a device of another id.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "conveyor/device.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "fuzz_check.hpp"

using conveyor::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> devices;
  try {
    CLI::App app;
    app.add_option("--devices", devices)->delimiter(',');
    // CLI11 takes a vector of arguments last first.
    app.parse(std::vector<std::string>{conveyor::fuzz::text_of(data, size), "--devices"});
  } catch (const CLI::ParseError&) {
    return 0;  // what the CLI reports as a usage error itself
  }
  std::vector<std::string> ids;  // as workers_of: the CPUs are workers, not devices
  for (const auto& d : devices)
    if (d != "cpu" && d != "cpu:0") ids.push_back(d);

  std::vector<std::string> expanded;
  try {
    expanded = conveyor::expand_devices(ids);
  } catch (const conveyor::UsageError&) {
    check(false, "expand_devices refused a list without cpu");
  }
  std::vector<std::string> here;  // this machine's devices other than the CPU
  for (const auto& d : conveyor::all_devices())
    if (d->info().kind != conveyor::DeviceKind::Cpu) here.push_back(d->info().id);
  const bool all = std::find(ids.begin(), ids.end(), "all") != ids.end();
  std::vector<std::string> asked;  // the named devices, first mention first
  for (const auto& id : ids)
    if (id != "all" && std::find(asked.begin(), asked.end(), id) == asked.end())
      asked.push_back(id);
  for (const auto& id : expanded) {
    check(id != "all" && id != "cpu" && id != "cpu:0", "expand_devices kept all or cpu");
    check(std::count(expanded.begin(), expanded.end(), id) == 1, "a device named twice");
    check(std::find(asked.begin(), asked.end(), id) != asked.end() ||
              (all && std::find(here.begin(), here.end(), id) != here.end()),
          "expand_devices added a device that was not asked for");
  }
  for (const auto& id : asked)
    check(std::find(expanded.begin(), expanded.end(), id) != expanded.end(),
          "expand_devices dropped a named device");
  // Without "all": exactly the named devices, in the order they were first named.
  check(all || expanded == asked, "expand_devices reordered the named devices");

  for (const auto& id : expanded) {
    try {
      const auto device = conveyor::find_device(id);
      check(device != nullptr && device->info().id == id, "find_device gave another device");
    } catch (const conveyor::UsageError&) {
      // An unknown device: what the runtime reports.
    }
  }
  // The tool's list with cpu left in is refused by the library (the CPUs are not devices).
  if (ids.size() != devices.size()) {
    try {
      (void)conveyor::expand_devices(devices);
      check(false, "expand_devices accepted cpu");
    } catch (const conveyor::UsageError&) {
    }
  }
  return 0;
}
