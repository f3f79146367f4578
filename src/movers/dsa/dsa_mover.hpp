#pragma once
// The `dsa` mover: Intel DSA memmove descriptors, with the cache-control flag so that staged blocks
// land in the LLC, submitted to a user work queue's portal (ENQCMD for shared queues, MOVDIR64B for
// dedicated ones) and completed by polling completion records. dsa_mover.cpp needs libaccel-config
// (CONVEYOR_WITH_DSA); without it dsa_unavailable.cpp says so.
#include <memory>

#include "conveyor/mover.hpp"

namespace conveyor::movers::dsa {

/// Throws UsageError "no DSA work queue found: ..." when there is none to use.
std::unique_ptr<Mover> make_dsa_mover(const MoverOptions& options);

}  // namespace conveyor::movers::dsa
