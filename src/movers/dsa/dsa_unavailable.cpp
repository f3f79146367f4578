// Built without libaccel-config: the dsa mover exists by name only.
#include "conveyor/error.hpp"
#include "movers/dsa/dsa_mover.hpp"

namespace conveyor::movers::dsa {

std::unique_ptr<Mover> make_dsa_mover(const MoverOptions&) {
  throw UsageError(
      "no DSA work queue found: this conveyor was built without libaccel-config "
      "(install libaccel-config-dev, reconfigure with CONVEYOR_WITH_DSA=AUTO or ON)");
}

}  // namespace conveyor::movers::dsa
