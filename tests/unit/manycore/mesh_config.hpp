#pragma once
// The simulator configuration the program tests run: a w x h mesh whose nodes have `entries`
// store-buffer entries, with a cycle limit that no correct program reaches.
#include "conveyor/sim.hpp"

namespace conveyor::sim::test {

inline SimConfig mesh(int w, int h, int entries) {
  SimConfig c;
  c.mesh_width = w;
  c.mesh_height = h;
  c.store_buffer_entries = entries;
  c.max_cycles = 20'000'000;
  return c;
}

}  // namespace conveyor::sim::test
