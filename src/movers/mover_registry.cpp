// make_mover(): the host movers by name.
#include <fmt/format.h>

#include "conveyor/error.hpp"
#include "conveyor/mover.hpp"
#include "movers/dsa/dsa_mover.hpp"
#include "movers/prefetch_mover.hpp"
#include "movers/thread_mover.hpp"

namespace conveyor {

std::vector<std::string> host_mover_names() { return {"thread", "prefetch", "dsa"}; }

std::unique_ptr<Mover> make_mover(std::string_view name, const MoverOptions& options) {
  if (name == "thread") return std::make_unique<movers::ThreadMover>(options);
  if (name == "prefetch") return std::make_unique<movers::PrefetchMover>();
  if (name == "dsa") return movers::dsa::make_dsa_mover(options);
  throw UsageError(
      fmt::format("unknown mover '{}' (host movers: thread, prefetch, dsa; devices: "
                  "opencl[:N], cuda[:N])",
                  name));
}

}  // namespace conveyor
