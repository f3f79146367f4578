// conveyor._core: the compiled half of the `conveyor` Python package (python/conveyor). It speaks
// libconveyor's public API only; the Python half turns its JSON documents into Result objects.
#include <nanobind/stl/string.h>

#include "conveyor/records.hpp"
#include "core.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "Conveyor's C++ library, as the conveyor package uses it (import conveyor instead)";
  conveyor::python::add_errors(m);
  conveyor::python::add_measurements(m);
  conveyor::python::add_runtime(m);
  conveyor::python::add_linalg(m);
  // The build the module was compiled from: version, compiler, backends (as `conveyor --version`).
  m.def("build_json", [] { return conveyor::build_record().dump(); });
  // Whether the simulator's RISC-V programs were built with this module (python/CMakeLists.txt).
  m.attr("sim_programs_built") = static_cast<bool>(CONVEYOR_PYTHON_SIM_PROGRAMS);
}
