#pragma once
// A runtime of `cpus` CPU workers for the tests, unpinned: tests share the machine.
#include "conveyor/runtime.hpp"

namespace conveyor::test {

inline RuntimeOptions cpu_options(int cpus) {
  RuntimeOptions o;
  o.cpus = cpus;
  o.pin = false;
  return o;
}

}  // namespace conveyor::test
