// The parts of conveyor._core, each defined in its own file and added to the module by module.cpp.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace conveyor::python {

/// conveyor.Error, UsageError, ValidationError, DeviceError and the translator from the C++ ones.
void add_errors(nanobind::module_& m);
/// conveyor.Error, for raising it with a Python exception as its cause (runtime.cpp).
PyObject* error_type();
/// devices_json(), stream_json(...): the measurements, as the CLI's JSON documents (text).
void add_measurements(nanobind::module_& m);
/// Runtime and Data: the task runtime over NumPy arrays.
void add_runtime(nanobind::module_& m);
/// RuntimeOptions::devices from Python's `devices=`: 'cpu', 'all', 'opencl:0,cuda:0' or a list of
/// ids (the CPUs are workers, not devices: 'cpu' adds none).
std::vector<std::string> device_list(nanobind::handle devices);
/// cholesky_in_place(...), qr_in_place(...): the apps' tile Cholesky and tile QR on a NumPy matrix
/// (conveyor.linalg).
void add_linalg(nanobind::module_& m);

}  // namespace conveyor::python
