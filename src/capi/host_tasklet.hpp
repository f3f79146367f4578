#pragma once
// Host tasklets (conveyor_tasklet_create): one codelet runs them all; the function and its
// arguments travel in the task's argument bytes, so that submitting allocates nothing.
#include "conveyor/codelet.hpp"

namespace conveyor::capi {

/// The codelet "host" that calls the function packed into each task's arguments.
Codelet make_host_codelet();

}  // namespace conveyor::capi
