// conveyor.Runtime over NumPy arrays: registration without a copy (the array's own memory becomes
// the host replica), Python callables as host tasks, and C++ failures as Python exceptions.
//
// The GIL: every call that can wait on the runtime (submit, wait, unregister, close) releases it,
// and a host task takes it only to run its callable. No C++ object that a worker thread may destroy
// owns a Python reference: a task's callable and arrays are held by the Runtime object until the
// wait() that follows them, so that the workers never touch a reference count.
#include "conveyor/runtime.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/error.hpp"
#include "core.hpp"

namespace nb = nanobind;

namespace conveyor::python {
namespace {

using Array = nb::ndarray<nb::device::cpu>;

/// One registered array: the runtime's handle, the array it lends its memory, and the layout to
/// rebuild the NumPy view a host task receives.
struct PyData {
  Data data;
  nb::object array;  ///< the user's object: alive while registered
  nb::dlpack::dtype dtype{};
  std::vector<std::size_t> shape;
  std::vector<std::int64_t> strides;  ///< in elements, as DLPack counts them
  std::string name;
};

/// Column-major ("C"-transposed or Fortran) layout of `a` for the runtime: a vector when the array
/// is contiguous, else a matrix with a leading dimension when one axis has unit stride.
Data register_array(Runtime& rt, const Array& a, std::vector<std::int64_t>& strides,
                    const std::string& name) {
  const std::size_t ndim = a.ndim();
  const std::size_t item = a.itemsize();
  if (a.size() == 0) throw UsageError("register: the array '" + name + "' is empty");
  strides.resize(ndim);
  for (std::size_t i = 0; i < ndim; ++i) strides[i] = a.stride(i);
  auto contiguous = [&](bool c_order) {
    std::int64_t expected = 1;
    for (std::size_t k = 0; k < ndim; ++k) {
      std::size_t i = c_order ? ndim - 1 - k : k;
      if (a.shape(i) != 1 && strides[i] != expected) return false;
      expected *= static_cast<std::int64_t>(a.shape(i));
    }
    return true;
  };
  void* ptr = a.data();
  if (contiguous(true) || contiguous(false)) return rt.register_bytes(ptr, item, a.size(), name);
  if (ndim == 2 && strides[0] == 1 && strides[1] >= static_cast<std::int64_t>(a.shape(0)))
    return rt.register_matrix_bytes(ptr, item, a.shape(0), a.shape(1),
                                    static_cast<std::size_t>(strides[1]), name);
  if (ndim == 2 && strides[1] == 1 && strides[0] >= static_cast<std::int64_t>(a.shape(1)))
    return rt.register_matrix_bytes(ptr, item, a.shape(1), a.shape(0),
                                    static_cast<std::size_t>(strides[0]), name);
  throw UsageError("register: '" + name +
                   "' is neither contiguous nor a 2-D array with unit stride along one axis "
                   "(numpy.ascontiguousarray makes a copy that is)");
}

Access parse_mode(const std::string& mode) {
  if (mode == "r" || mode == "read") return Access::Read;
  if (mode == "w" || mode == "write") return Access::Write;
  if (mode == "rw" || mode == "readwrite") return Access::ReadWrite;
  throw UsageError("access mode '" + mode + "': use 'r', 'w' or 'rw'");
}

/// "ValueError: the message", for the C++ error that wait() reports.
std::string describe(const nb::python_error& e) {
  nb::handle type = e.type();
  std::string text = nb::cast<std::string>(nb::str(e.value()));
  std::string kind = nb::cast<std::string>(nb::str(type.attr("__name__")));
  return text.empty() ? kind : kind + ": " + text;
}

class PyRuntime;
std::set<PyRuntime*> live_runtimes;  // closed at interpreter exit (atexit), under the GIL

class PyRuntime {
 public:
  explicit PyRuntime(RuntimeOptions options) {
    rt_ = std::make_unique<Runtime>(std::move(options));
    live_runtimes.insert(this);
  }
  ~PyRuntime() {
    live_runtimes.erase(this);
    close();
  }

  nb::object register_array(nb::object array, std::string name) {
    Runtime& rt = runtime();
    Array a;
    // No conversion: a copy would defeat the point (the task must see the user's memory).
    if (!nb::try_cast<Array>(array, a, /*convert=*/false)) {
      if (nb::hasattr(array, "flags") && nb::hasattr(array.attr("flags"), "writeable") &&
          !nb::cast<bool>(array.attr("flags").attr("writeable")))
        throw UsageError("register: the array is read-only (tasks write into registered memory)");
      throw UsageError(
          "register: expects a writable array on the CPU (NumPy, or any object with "
          "the buffer protocol or DLPack); got " +
          nb::cast<std::string>(nb::str(array.type().attr("__name__"))));
    }
    auto data = std::make_unique<PyData>();
    data->name = name.empty() ? "array " + std::to_string(registry_.size()) : name;
    data->dtype = a.dtype();
    for (std::size_t i = 0; i < a.ndim(); ++i) data->shape.push_back(a.shape(i));
    data->data = python::register_array(rt, a, data->strides, data->name);
    data->array = std::move(array);
    nb::object handle = nb::cast(data.release(), nb::rv_policy::take_ownership);
    registry_.insert({nb::inst_ptr<PyData>(handle), handle});
    return handle;
  }

  void unregister(PyData& d) {
    Runtime& rt = runtime();
    auto it = registry_.find(&d);
    if (it == registry_.end()) throw UsageError("unregister: '" + d.name + "' is not registered");
    {
      nb::gil_scoped_release release;
      rt.unregister(d.data);
    }
    registry_.erase(it);
  }

  TaskId submit(nb::callable fn, nb::iterable accesses, int priority, std::string name) {
    Runtime& rt = runtime();
    std::vector<DataAccess> list;
    std::vector<const PyData*> views;
    for (nb::handle item : accesses) {
      auto pair = nb::cast<nb::tuple>(item);
      if (pair.size() != 2) throw UsageError("submit: each access is (data, mode)");
      PyData& d = nb::cast<PyData&>(pair[0]);
      if (!registry_.count(&d))
        throw UsageError("submit: '" + d.name + "' is not registered with this runtime");
      list.push_back({d.data, parse_mode(nb::cast<std::string>(pair[1]))});
      views.push_back(&d);
    }
    if (name.empty())
      name = nb::cast<std::string>(nb::str(nb::getattr(fn, "__name__", nb::str("python"))));
    Codelet codelet(name);
    PyRuntime* self = this;
    PyObject* callable = fn.ptr();  // held by in_flight_ until the next wait()
    codelet.cpu([self, callable, views](const TaskContext& t) {
      nb::gil_scoped_acquire gil;
      try {
        nb::list args;
        for (std::size_t i = 0; i < views.size(); ++i) {
          const PyData& d = *views[i];
          // The view lives in the buffer the runtime gives the task (the user's memory on a CPU),
          // with the array's own shape and strides; it keeps the array alive if the callable keeps
          // it.
          nb::ndarray<nb::numpy> view(t.buffer(i).ptr, d.shape.size(), d.shape.data(), d.array,
                                      d.strides.data(), d.dtype, nb::device::cpu::value);
          args.append(nb::cast(view));
        }
        // Called through the C API with an explicit tuple: nanobind's handle(*list) did not pass
        // the views on (the callable ran without them being visible).
        nb::object tuple = nb::steal(PyList_AsTuple(args.ptr()));
        nb::object result = nb::steal(PyObject_Call(callable, tuple.ptr(), nullptr));
        if (!result.is_valid()) throw nb::python_error();
      } catch (nb::python_error& e) {
        std::string message = describe(e);
        self->python_errors_[t.task_id()] = nb::borrow(e.value());
        throw Error(message);
      }
    });
    in_flight_.push_back(fn);
    nb::gil_scoped_release release;
    return rt.submit(codelet, list, priority, name);
  }

  void wait() {
    Runtime& rt = runtime();
    try {
      nb::gil_scoped_release release;
      rt.wait_all();
    } catch (const Error& e) {
      raise_with_cause(e);
    }
    in_flight_.clear();
    python_errors_.clear();
  }

  void close() {
    if (!rt_) return;
    {
      // The destructor waits for the tasks, which may need the GIL to run their callables.
      nb::gil_scoped_release release;
      rt_.reset();
    }
    in_flight_.clear();
    python_errors_.clear();
    registry_.clear();
  }

  bool closed() const { return !rt_; }
  Runtime& runtime() {
    if (!rt_) throw UsageError("the runtime is closed");
    return *rt_;
  }
  static void close_all() {
    for (PyRuntime* rt : std::set<PyRuntime*>(live_runtimes)) rt->close();
  }

 private:
  /// Raises conveyor.Error with the C++ message; when a callable raised, its exception becomes the
  /// cause (so the traceback shows where in the callable). The message names the failed task as
  /// "#ID)", which picks the exception.
  [[noreturn]] void raise_with_cause(const Error& e) {
    std::string message = e.what();
    nb::object cause;
    for (auto& [id, exc] : python_errors_)
      if (message.find("#" + std::to_string(id) + ")") != std::string::npos) cause = exc;
    in_flight_.clear();
    python_errors_.clear();
    if (!cause.is_valid() || dynamic_cast<const UsageError*>(&e)) throw;
    nb::object error = nb::handle(error_type())(message);
    PyException_SetCause(error.ptr(), cause.release().ptr());  // steals the reference
    PyErr_SetObject(error_type(), error.ptr());
    throw nb::python_error();
  }

  std::unique_ptr<Runtime> rt_;
  std::map<const PyData*, nb::object> registry_;  ///< registered arrays (and their handles)
  std::vector<nb::object> in_flight_;             ///< callables submitted since the last wait
  std::map<TaskId, nb::object> python_errors_;    ///< exceptions raised by callables, by task
};

}  // namespace

std::vector<std::string> device_list(nb::handle devices) {
  std::vector<std::string> ids;
  auto add = [&](std::string text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t comma = std::min(text.find(',', start), text.size());
      std::string id = text.substr(start, comma - start);
      // The CPUs are the runtime's workers (cpus=), not one of its devices.
      if (!id.empty() && id != "cpu") ids.push_back(id);
      start = comma + 1;
    }
  };
  if (devices.is_none()) return ids;
  if (nb::isinstance<nb::str>(devices)) {
    add(nb::cast<std::string>(devices));
  } else {
    for (nb::handle d : nb::iter(devices)) add(nb::cast<std::string>(d));
  }
  return ids;
}

void add_runtime(nb::module_& m) {
  nb::class_<PyData>(m, "Data", "An array registered with a Runtime (Runtime.register)")
      .def_prop_ro(
          "array", [](PyData& d) { return d.array; }, "The registered array itself")
      .def_ro("name", &PyData::name)
      .def_prop_ro("registered", [](PyData& d) { return d.data.registered(); })
      .def("__repr__", [](PyData& d) {
        return "<conveyor.Data '" + d.name + "' " + std::to_string(d.data.bytes()) + " bytes>";
      });

  nb::class_<PyRuntime>(
      m, "Runtime",
      "Conveyor's task runtime on this process's arrays: register arrays without copying them,\n"
      "submit Python callables as host tasks over them, wait (docs/python.md).\n"
      "devices: 'cpu' (CPU workers only), 'all' or ids such as 'opencl:0'; cpus: CPU workers\n"
      "(-1: one per core); the other arguments as in conveyor::RuntimeOptions.")
      .def(
          "__init__",
          [](PyRuntime* self, nb::handle devices, int cpus, bool pin, std::string scheduler,
             bool trace, std::string perf_models, std::uint64_t max_submitted) {
            RuntimeOptions o;
            o.devices = device_list(devices);
            o.cpus = cpus;
            o.pin = pin;
            o.scheduler = std::move(scheduler);
            o.trace = trace;
            o.perf_models = std::move(perf_models);
            o.max_submitted = max_submitted;
            new (self) PyRuntime(std::move(o));
          },
          nb::arg("devices") = "cpu", nb::arg("cpus") = -1, nb::arg("pin") = true,
          nb::arg("scheduler") = "auto", nb::arg("trace") = false, nb::arg("perf_models") = "",
          nb::arg("max_submitted") = 0)
      .def("register", &PyRuntime::register_array, nb::arg("array"), nb::arg("name") = "",
           "Registers an array without copying it; returns its Data handle")
      .def("unregister", &PyRuntime::unregister, nb::arg("data"))
      .def("submit", &PyRuntime::submit, nb::arg("fn"), nb::arg("accesses"),
           nb::arg("priority") = 0, nb::arg("name") = "",
           "Submits fn(*views) as a host task over [(data, 'r'|'w'|'rw'), ...]; returns its id")
      .def("wait", &PyRuntime::wait, "Waits for every task; raises conveyor.Error on a failure")
      .def("close", &PyRuntime::close, "Waits for the tasks and stops the workers")
      .def_prop_ro("closed", &PyRuntime::closed)
      .def("workers", [](PyRuntime& r) { return r.runtime().workers(); })
      .def(
          "write_trace",
          [](PyRuntime& r, const std::string& path) { r.runtime().write_trace(path); },
          nb::arg("path"))
      .def("stats",
           [](PyRuntime& r) {
             RuntimeStats s = r.runtime().stats();
             nb::dict d;
             d["tasks"] = s.tasks;
             d["scheduler"] = s.scheduler;
             d["h2d_copies"] = s.h2d_copies;
             d["h2d_bytes"] = s.h2d_bytes;
             d["d2h_copies"] = s.d2h_copies;
             d["d2h_bytes"] = s.d2h_bytes;
             return d;
           })
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyRuntime& r, nb::args) { r.close(); });

  // Workers blocked on the GIL cannot finish once the interpreter is finalising: close first.
  nb::module_::import_("atexit").attr("register")(nb::cpp_function([] { PyRuntime::close_all(); }));
}

}  // namespace conveyor::python
