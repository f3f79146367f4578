// Helpers of the coherence engine's unit tests: a host vector as a datum, a task's use on a device.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "data/coherence.hpp"

namespace conveyor::test {

// `v` as the datum `d` (a column of ints), known to the engine.
inline void init_vector(data::CoherenceEngine& engine, data::DataState& d, std::vector<int>& v) {
  d.elem_size = sizeof(int);
  d.rows = v.size();
  d.ld = v.size();
  d.host = reinterpret_cast<char*>(v.data());
  engine.init(d);
}

// A task using `d` with `mode` on device space 1: room, the copy in when needed, done.
inline void use_on_device(data::CoherenceEngine& engine, data::DataState& d, Access mode) {
  int peer = 0;
  int r = engine.reserve_on_device(d, 1, mode);
  ASSERT_EQ(r, data::CoherenceEngine::kLocal);
  ASSERT_NE(engine.prepare_on_device(d, 1, mode, &peer, r), nullptr);
  engine.finish_on_device(d, 1, mode);
  engine.unpin(d, 1, r);
}

}  // namespace conveyor::test
