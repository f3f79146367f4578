// Python exceptions for conveyor::Error and its subclasses, carrying the C++ message unchanged.
// UsageError also derives from ValueError, so `except ValueError` catches a bad keyword argument.
#include <Python.h>

#include "conveyor/error.hpp"
#include "core.hpp"

namespace nb = nanobind;

namespace conveyor::python {
namespace {

struct ErrorTypes {
  PyObject* error = nullptr;
  PyObject* usage = nullptr;
  PyObject* validation = nullptr;
  PyObject* device = nullptr;
};
ErrorTypes types;  // created once at import; the module keeps references to them

PyObject* new_type(nb::module_& m, const char* name, PyObject* bases, const char* doc) {
  std::string qualified = std::string("conveyor.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);  // the module's attribute holds a reference too
  return type;
}

}  // namespace

PyObject* error_type() { return types.error; }

void add_errors(nb::module_& m) {
  types.error =
      new_type(m, "Error", PyExc_RuntimeError,
               "A Conveyor failure (the CLI's exit status 1); the message is the C++ one.");
  nb::object usage_bases = nb::make_tuple(nb::handle(types.error), nb::handle(PyExc_ValueError));
  types.usage = new_type(m, "UsageError", usage_bases.ptr(),
                         "Bad usage or input: an option out of range, an unknown device (exit 2).");
  types.validation =
      new_type(m, "ValidationError", types.error, "A result failed its check against gold values.");
  types.device =
      new_type(m, "DeviceError", types.error, "A device API call failed (names call, file, line).");
  // One translator for the whole hierarchy, most derived first (nanobind would try separately
  // registered translators in an order that is easy to get wrong).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const UsageError& e) {
      PyErr_SetString(types.usage, e.what());
    } catch (const ValidationError& e) {
      PyErr_SetString(types.validation, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(types.device, e.what());
    } catch (const Error& e) {
      PyErr_SetString(types.error, e.what());
    }
  });
}

}  // namespace conveyor::python
