// Feeds: any bytes as a simulated platform file (--platform, platforms/*.json) to its reader,
// parse_platform (src/device/simulated/platform.cpp), and the platforms it accepts to the running
// Platform (routes over links and switches), as the runtime opens one, then to the modelled costs
// that the model schedulers ask.
// A bug: a crash, sanitizer report (e.g. a number cast to a type it does not fit) or
// out-of-memory; a rejection that is not UsageError; an accepted platform that breaks the
// reader's promises (at least one host core and one device, device ids id:k and unique, links
// between known, distinct endpoints with positive bandwidths); a running platform without a route
// between the host and a device, or with a negative or unknown copy or task cost.
#include "device/simulated/platform.hpp"

#include <cstdint>
#include <set>
#include <string>

#include "conveyor/error.hpp"
#include "fuzz_check.hpp"

using conveyor::fuzz::check;
namespace simulated = conveyor::device::simulated;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  simulated::PlatformSpec spec;
  try {
    spec = simulated::parse_platform(conveyor::fuzz::text_of(data, size), "fuzz.json");
  } catch (const conveyor::UsageError&) {
    return 0;
  }
  check(spec.host_cores >= 1, "a platform without a host core");
  check(!spec.devices.empty(), "a platform without a device");
  std::set<std::string> nodes{"host"};
  for (const auto& d : spec.devices) {
    check(d.id.find(':') != std::string::npos, "a device id that is not id:k");
    check(nodes.insert(d.id).second, "a device id repeated");
    check(d.remote_read_factor > 0, "a remote read factor that is not positive");
  }
  for (const auto& s : spec.switches) check(nodes.insert(s).second, "a switch name repeated");
  for (const auto& l : spec.links) {
    check(nodes.count(l.a) && nodes.count(l.b) && l.a != l.b, "a link between unknown endpoints");
    check(l.gbs_ab > 0 && l.gbs_ba > 0 && l.latency_us >= 0, "a link bandwidth not positive");
  }

  try {
    // Kernels are not run (false): the costs alone, as the simulated runs of the Cholesky.
    simulated::Platform platform(spec, 0, false);
    check(platform.devices() == static_cast<int>(spec.devices.size()), "devices went missing");
    for (int d = 0; d < platform.devices(); ++d) {
      const std::string& id = spec.devices[static_cast<std::size_t>(d)].id;
      check(platform.has_route(simulated::Platform::host_node(),
                               simulated::Platform::device_node(d)) &&
                platform.has_route(simulated::Platform::device_node(d),
                                   simulated::Platform::host_node()),
            "an accepted platform without a route between the host and a device");
      const double copy = platform.copy_seconds("host", id, 1 << 20);
      check(copy >= 0, "a negative or missing copy cost to a device");
      const double back = platform.copy_seconds(id, "cpu", 1 << 20);
      check(back >= 0, "a negative or missing copy cost from a device");
      (void)platform.task_seconds("gemm", id, 1e9, 1 << 20);
    }
    (void)platform.task_seconds("gemm", "cpu", 1e9, 1 << 20);
  } catch (const conveyor::UsageError&) {
    // No route between the host and a device: the documented rejection of open_platform.
  }
  return 0;
}
