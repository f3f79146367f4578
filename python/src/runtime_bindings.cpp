// conveyor.Runtime over NumPy arrays: registration without a copy (the array's own memory becomes
// the host replica), Python callables as host tasks, the apps' built-in tile codelets by name (on
// every device kind they implement), host access to registered data, and C++ failures as Python
// exceptions.
//
// The GIL: every call that can wait on the runtime (submit, wait, unregister, close) releases it,
// and a host task takes it only to run its callable. No C++ object that a worker thread may destroy
// owns a Python reference: a task's callable and arrays are held by the Runtime object until the
// wait() that follows them, so that the workers never touch a reference count.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "common/blas_threads.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "core.hpp"

namespace nb = nanobind;

namespace conveyor::python {
namespace {

using Array = nb::ndarray<nb::device::cpu>;
using CudaArray = nb::ndarray<nb::device::cuda>;
namespace cholesky = apps::cholesky;

class PyRuntime;

/// One registered array: the runtime's handle, the array it lends its memory, and the layout to
/// rebuild the NumPy view a host task receives.
struct PyData {
  Data data;
  nb::object array;  ///< the user's object: alive while registered
  nb::dlpack::dtype dtype{};
  std::vector<std::size_t> shape;
  std::vector<std::int64_t> strides;  ///< in elements, as DLPack counts them
  std::string name;
  PyRuntime* owner = nullptr;  ///< the runtime it is registered with (null once unregistered)

  /// A NumPy view of the same memory with the array's shape and strides; `base` keeps it alive.
  nb::object view(void* ptr) const {
    return nb::cast(nb::ndarray<nb::numpy>(ptr, shape.size(), shape.data(), array, strides.data(),
                                           dtype, nb::device::cpu::value));
  }
  /// Registered as a column-major matrix (Fortran order, more than one row): what the built-in
  /// tile kernels read, with the array's own shape.
  bool column_major = false;
};

/// A built-in codelet's access modes, in order: the tile kernels of apps/cholesky (potrf A;
/// trsm A_kk, A_ik; syrk A_ik, A_ii; gemm A_ik, A_jk, A_ij with A_ij -= A_ik A_jk^T).
const std::vector<Access>* builtin_modes(const std::string& name) {
  static const std::map<std::string, std::vector<Access>> modes{
      {"potrf", {Access::ReadWrite}},
      {"trsm", {Access::Read, Access::ReadWrite}},
      {"syrk", {Access::Read, Access::ReadWrite}},
      {"gemm", {Access::Read, Access::Read, Access::ReadWrite}}};
  auto it = modes.find(name);
  return it == modes.end() ? nullptr : &it->second;
}

/// An open host access (Data.acquire): the latest contents are in the array's memory until
/// release(); tasks that write it wait meanwhile.
struct PyAccess {
  HostAccess access;
  nb::object view;
  PyRuntime* owner = nullptr;  ///< null once released
  ~PyAccess() { release(); }
  void release();
};

/// The strides of `a` into `strides`, in elements, as DLPack counts them.
template <typename Ndarray>
void read_strides(const Ndarray& a, std::vector<std::int64_t>& strides) {
  strides.resize(a.ndim());
  for (std::size_t i = 0; i < a.ndim(); ++i) strides[i] = a.stride(i);
}
/// Whether `a`, with these strides, is contiguous in C order (`c_order`) or Fortran order.
template <typename Ndarray>
bool is_contiguous(const Ndarray& a, const std::vector<std::int64_t>& strides, bool c_order) {
  const std::size_t ndim = a.ndim();
  std::int64_t expected = 1;
  for (std::size_t k = 0; k < ndim; ++k) {
    std::size_t i = c_order ? ndim - 1 - k : k;
    if (a.shape(i) != 1 && strides[i] != expected) return false;
    expected *= static_cast<std::int64_t>(a.shape(i));
  }
  return true;
}

/// How the runtime sees an array: a vector of its elements (contiguous in either order), or a
/// column-major matrix with a leading dimension (one axis of unit stride: a Fortran-ordered array
/// as itself, a C-ordered one as its transpose). `column_major`: a 2-D array that is a matrix as it
/// stands, even when contiguous (the built-in tile kernels take their shapes, rows, columns and
/// leading dimension, from the registration).
struct Layout {
  bool matrix = false;
  std::size_t rows = 0, cols = 0, ld = 0;
  bool column_major = false;
  bool transposed = false;  ///< a matrix that is the array's transpose (unit stride along axis 1)
};

template <typename Ndarray>
Layout layout_of(const Ndarray& a, std::vector<std::int64_t>& strides, const std::string& name,
                 const std::string& where, const char* remedy) {
  const std::size_t ndim = a.ndim();
  if (a.size() == 0) throw UsageError("register: the array '" + name + "' is empty");
  read_strides(a, strides);
  auto at_least = [&](std::size_t axis, std::size_t other) {
    return strides[axis] >= static_cast<std::int64_t>(a.shape(other));
  };
  if (ndim == 2 && strides[0] == 1 && a.shape(0) > 1 && at_least(1, 0))
    return {true, a.shape(0), a.shape(1), static_cast<std::size_t>(strides[1]), true};
  if (is_contiguous(a, strides, true) || is_contiguous(a, strides, false)) return {};
  if (ndim == 2 && strides[0] == 1 && at_least(1, 0))
    return {true, a.shape(0), a.shape(1), static_cast<std::size_t>(strides[1]), false};
  if (ndim == 2 && strides[1] == 1 && at_least(0, 1))
    return {true, a.shape(1), a.shape(0), static_cast<std::size_t>(strides[0]), false, true};
  throw UsageError("register: '" + name + "'" + where +
                   " is neither contiguous nor a 2-D array with unit stride along one axis (" +
                   remedy + ")");
}

/// A host array registered in place (its memory is the data's home).
Data register_array(Runtime& rt, const Array& a, std::vector<std::int64_t>& strides,
                    const std::string& name, bool& column_major) {
  const Layout l = layout_of(a, strides, name, "", "numpy.ascontiguousarray makes a copy that is");
  column_major = l.column_major;
  return l.matrix ? rt.register_matrix_bytes(a.data(), a.itemsize(), l.rows, l.cols, l.ld, name)
                  : rt.register_bytes(a.data(), a.itemsize(), a.size(), name);
}

/// An array in CUDA memory registered in place as its device's data (Runtime::
/// register_device_bytes; a matrix with ld > rows is a strided home, copied on the device into a
/// contiguous block of the runtime's and back: docs/runtime.md, "Strided homes").
Data register_device_array(Runtime& rt, const CudaArray& a, std::vector<std::int64_t>& strides,
                           const std::string& name, bool& column_major) {
  const std::string device = "cuda:" + std::to_string(a.device_id());
  const Layout l = layout_of(a, strides, name, " on " + device,
                             "make a contiguous copy with the array's library");
  column_major = l.column_major;
  if (!l.matrix) return rt.register_device_bytes(device, a.data(), a.itemsize(), a.size(), name);
  Data d =
      rt.register_device_matrix_bytes(device, a.data(), a.itemsize(), l.rows, l.cols, l.ld, name);
  // The host copy that host tasks and acquire see is contiguous (its ld is its rows): their views
  // take its strides, not the GPU array's.
  const auto rows = static_cast<std::int64_t>(l.rows);
  strides = l.transposed ? std::vector<std::int64_t>{rows, 1} : std::vector<std::int64_t>{1, rows};
  return d;
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
    // An array on a CUDA device (DLPack device type 2: CuPy, PyTorch): in place on that device,
    // which the runtime must have (conveyor.Runtime.register checks that first, saying so).
    if (nb::hasattr(array, "__dlpack_device__") &&
        nb::cast<int>(array.attr("__dlpack_device__")()[0]) == nb::device::cuda::value) {
      CudaArray on_device;
      if (!nb::try_cast<CudaArray>(array, on_device, /*convert=*/false))
        throw UsageError("register: the CUDA array cannot be taken through DLPack (dtype?)");
      auto data = std::make_unique<PyData>();
      data->name = name.empty() ? "array " + std::to_string(registry_.size()) : name;
      data->dtype = on_device.dtype();
      for (std::size_t i = 0; i < on_device.ndim(); ++i) data->shape.push_back(on_device.shape(i));
      data->data =
          register_device_array(rt, on_device, data->strides, data->name, data->column_major);
      return keep(std::move(data), std::move(array));
    }
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
    data->data = python::register_array(rt, a, data->strides, data->name, data->column_major);
    return keep(std::move(data), std::move(array));
  }

  /// The handle of a registered array, kept in the registry with the array alive.
  nb::object keep(std::unique_ptr<PyData> data, nb::object array) {
    data->array = std::move(array);
    data->owner = this;
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
    d.owner = nullptr;
    registry_.erase(it);
  }

  void discard(PyData& d) {
    Runtime& rt = runtime();
    if (registry_.find(&d) == registry_.end())
      throw UsageError("discard: '" + d.name + "' is not registered");
    nb::gil_scoped_release release;
    rt.discard(d.data);
  }

  /// fn: a Python callable (a host task called with one NumPy view per access) or the name of a
  /// built-in codelet (its tile kernel on whichever worker the scheduler picks).
  TaskId submit(nb::object fn, nb::iterable accesses, int priority, std::string name) {
    if (nb::isinstance<nb::str>(fn))
      return submit_builtin(nb::cast<std::string>(fn), accesses, priority, name);
    if (!PyCallable_Check(fn.ptr()))
      throw UsageError("submit: fn is a Python callable or the name of a built-in codelet (" +
                       builtin_names() + ")");
    Runtime& rt = runtime();
    std::vector<DataAccess> list;
    std::vector<const PyData*> views;
    parse_accesses(accesses, nullptr, list, views);
    if (name.empty())
      name = nb::cast<std::string>(nb::str(nb::getattr(fn, "__name__", nb::str("python"))));
    Codelet codelet(name);
    PyRuntime* self = this;
    PyObject* callable = fn.ptr();  // held by in_flight_ until the next wait()
    codelet.cpu([self, callable, views](const TaskContext& t) {
      nb::gil_scoped_acquire gil;
      try {
        nb::list args;
        // Each view lives in the buffer the runtime gives the task (the user's memory on a CPU),
        // with the array's own shape and strides; it keeps the array alive if the callable keeps
        // it.
        for (std::size_t i = 0; i < views.size(); ++i) args.append(views[i]->view(t.buffer(i).ptr));
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

  /// Data.acquire: waits (GIL released) until the tasks before it are done and the latest contents
  /// are in the array's memory; the returned access holds them there until released.
  nb::object acquire(PyData& d, const std::string& mode) {
    Runtime& rt = runtime();
    Access access = parse_mode(mode);
    auto held = std::make_unique<PyAccess>();
    {
      nb::gil_scoped_release release;
      held->access = rt.acquire(d.data, access);
    }
    held->view = d.view(held->access.data());
    held->owner = this;
    open_.insert(held.get());
    return nb::cast(held.release(), nb::rv_policy::take_ownership);
  }
  /// The same built-in task `count` times, submitted from C++: bench/python_overhead.py's baseline
  /// for what a submission from Python adds.
  TaskId submit_many(const std::string& codelet_name, nb::iterable accesses, std::size_t count) {
    return submit_builtin(codelet_name, accesses, 0, "", count);
  }
  void forget(PyAccess* access) { open_.erase(access); }
  void wait() {
    Runtime& rt = runtime();
    try {
      nb::gil_scoped_release release;
      rt.wait_all();
    } catch (const Error& e) {
      raise_with_cause(e, /*forget=*/true);
    }
    in_flight_.clear();
    python_errors_.clear();
  }

  /// Task.wait: waits (GIL released) for one task, `timeout` seconds at most (< 0: no limit);
  /// returns whether it finished, raises conveyor.Error when it failed (a callable's exception as
  /// the cause, until the next Runtime.wait). Everything stays for Runtime.wait to report.
  bool wait_task(TaskId id, double timeout) {
    Runtime& rt = runtime();
    try {
      nb::gil_scoped_release release;
      if (timeout < 0) {
        rt.wait(id);
        return true;
      }
      return rt.wait_for(id, std::chrono::duration<double>(timeout));
    } catch (const Error& e) {
      raise_with_cause(e, /*forget=*/false);
    }
  }
  /// Task.done: whether the task has finished; after close(), every task has.
  bool task_done(TaskId id) { return closed() || runtime().finished(id); }

  void close() {
    if (!rt_) return;
    // Open host accesses first: tasks waiting for them would keep the runtime from stopping.
    for (PyAccess* access : std::set<PyAccess*>(open_)) access->release();
    {
      // The destructor waits for the tasks, which may need the GIL to run their callables.
      nb::gil_scoped_release release;
      rt_.reset();
    }
    in_flight_.clear();
    python_errors_.clear();
    for (auto& [data, handle] : registry_) const_cast<PyData*>(data)->owner = nullptr;
    registry_.clear();
    if (single_threaded_blas_) apps::common::use_all_threads_blas();
    single_threaded_blas_ = false;
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
  /// "#ID)", which picks the exception. `forget`: Runtime.wait, after which the callables and
  /// their exceptions are let go.
  [[noreturn]] void raise_with_cause(const Error& e, bool forget) {
    std::string message = e.what();
    nb::object cause;
    for (auto& [id, exc] : python_errors_)
      if (message.find("#" + std::to_string(id) + ")") != std::string::npos) cause = exc;
    if (forget) {
      in_flight_.clear();
      python_errors_.clear();
    }
    if (!cause.is_valid() || dynamic_cast<const UsageError*>(&e)) throw;
    nb::object error = nb::handle(error_type())(message);
    PyException_SetCause(error.ptr(), cause.release().ptr());  // steals the reference
    PyErr_SetObject(error_type(), error.ptr());
    throw nb::python_error();
  }

  static std::string builtin_names() { return "potrf, trsm, syrk, gemm"; }

  /// (data, mode) pairs, or bare Data where the codelet implies the mode (`implied`, built-ins).
  void parse_accesses(nb::iterable accesses, const std::vector<Access>* implied,
                      std::vector<DataAccess>& list, std::vector<const PyData*>& views) {
    for (nb::handle item : accesses) {
      const PyData* d = nullptr;
      std::optional<Access> mode;
      if (nb::isinstance<PyData>(item)) {
        d = &nb::cast<const PyData&>(item);
      } else {
        auto pair = nb::cast<nb::tuple>(item);
        if (pair.size() != 2) throw UsageError("submit: each access is (data, mode) or data");
        d = &nb::cast<const PyData&>(pair[0]);
        mode = parse_mode(nb::cast<std::string>(pair[1]));
      }
      if (d->owner != this)
        throw UsageError("submit: '" + d->name + "' is not registered with this runtime");
      const std::size_t i = list.size();
      if (implied && i < implied->size()) {
        if (mode && *mode != (*implied)[i])
          throw UsageError("submit: access " + std::to_string(i) + " ('" + d->name +
                           "') of a built-in codelet has the mode '" +
                           std::string(to_string((*implied)[i])) + "'");
        mode = (*implied)[i];
      }
      if (!mode && implied) mode = Access::Read;  // one too many: the caller reports the count
      if (!mode)
        throw UsageError("submit: a Python task's accesses need their mode: (data, 'r'|'w'|'rw')");
      list.push_back({d->data, *mode});
      views.push_back(d);
    }
  }

  /// The tile kernels trust their shapes (a wrong one would run past a tile): potrf A (n x n);
  /// trsm A_kk (k x k), A_ik (m x k); syrk A_ik (n x k), A_ii (n x n); gemm A_ik (m x k), A_jk
  /// (n x k), A_ij (m x n).
  static void check_tile_shapes(const std::string& codelet, const std::vector<const PyData*>& t) {
    auto rows = [&](std::size_t i) { return t[i]->shape[0]; };
    auto cols = [&](std::size_t i) { return t[i]->shape[1]; };
    bool ok = true;
    std::string expected;
    if (codelet == "potrf") {
      ok = rows(0) == cols(0);
      expected = "A square";
    } else if (codelet == "trsm") {
      ok = rows(0) == cols(0) && cols(1) == cols(0);
      expected = "A_kk k x k, A_ik m x k";
    } else if (codelet == "syrk") {
      ok = rows(1) == cols(1) && rows(0) == rows(1);
      expected = "A_ik n x k, A_ii n x n";
    } else {
      ok = cols(0) == cols(1) && rows(2) == rows(0) && cols(2) == rows(1);
      expected = "A_ik m x k, A_jk n x k, A_ij m x n";
    }
    if (ok) return;
    std::string got;
    for (const PyData* d : t)
      got += (got.empty() ? "" : ", ") + std::to_string(d->shape[0]) + " x " +
             std::to_string(d->shape[1]);
    throw UsageError("submit: '" + codelet + "' takes " + expected + " (got " + got + ")");
  }

  TaskId submit_builtin(const std::string& codelet_name, nb::iterable accesses, int priority,
                        const std::string& name, std::size_t count = 1) {
    Runtime& rt = runtime();
    const std::vector<Access>* modes = builtin_modes(codelet_name);
    if (!modes)
      throw UsageError("submit: no built-in codelet '" + codelet_name + "' (" + builtin_names() +
                       ")");
    std::vector<DataAccess> list;
    std::vector<const PyData*> views;
    parse_accesses(accesses, modes, list, views);
    if (list.size() != modes->size())
      throw UsageError("submit: '" + codelet_name + "' takes " + std::to_string(modes->size()) +
                       " tiles, got " + std::to_string(list.size()));
    const nb::dlpack::dtype dtype = views.front()->dtype;
    const bool single = dtype == nb::dtype<float>();
    if (!single && dtype != nb::dtype<double>())
      throw UsageError("submit: '" + codelet_name + "' takes float64 or float32 tiles");
    for (const PyData* d : views) {
      if (d->dtype != dtype)
        throw UsageError("submit: the tiles of one '" + codelet_name + "' share one dtype");
      if (!d->column_major)
        throw UsageError("submit: '" + d->name +
                         "' is not a column-major matrix: built-in codelets take 2-D "
                         "Fortran-ordered tiles of more than one row (numpy.asfortranarray, or "
                         "views of a Fortran-ordered matrix)");
    }
    check_tile_shapes(codelet_name, views);
    auto& codelets = single ? single_ : double_;
    if (!codelets)
      codelets = std::make_unique<cholesky::CholeskyCodelets>(single ? cholesky::Precision::Single
                                                                     : cholesky::Precision::Double);
    if (!single_threaded_blas_) {
      // One BLAS thread per task, as the apps run: the workers are the parallelism (restored at
      // close).
      apps::common::use_single_threaded_blas();
      single_threaded_blas_ = true;
    }
    const Codelet& codelet = *codelets->find(codelet_name);
    nb::gil_scoped_release release;
    TaskId id{};
    for (std::size_t i = 0; i < count; ++i) id = rt.submit(codelet, list, priority, name);
    return id;
  }

  std::unique_ptr<cholesky::CholeskyCodelets> single_, double_;  ///< built, once asked for
  bool single_threaded_blas_ = false;
  std::set<PyAccess*> open_;  ///< host accesses not yet released
  std::unique_ptr<Runtime> rt_;
  std::map<const PyData*, nb::object> registry_;  ///< registered arrays (and their handles)
  std::vector<nb::object> in_flight_;             ///< callables submitted since the last wait
  std::map<TaskId, nb::object> python_errors_;    ///< exceptions raised by callables, by task
};

void PyAccess::release() {
  if (!owner) return;
  owner->forget(this);
  owner = nullptr;
  view = nb::object();
  nb::gil_scoped_release release;  // may wake tasks that wait for it
  access.release();
}

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
      .def("__repr__",
           [](PyData& d) {
             return "<conveyor.Data '" + d.name + "' " + std::to_string(d.data.bytes()) + " bytes>";
           })
      .def(
          "acquire",
          [](PyData& d, const std::string& mode) {
            if (!d.owner) throw UsageError("acquire: '" + d.name + "' is not registered");
            return d.owner->acquire(d, mode);
          },
          nb::arg("mode") = "rw",
          "Waits for the tasks before it and holds the latest contents in the array's memory\n"
          "until released: `with data.acquire('r') as view: ...` (tasks that need the data\n"
          "wait meanwhile; release it before Runtime.wait)");

  nb::class_<PyAccess>(m, "HostAccess", "Host access to registered data (Data.acquire)")
      .def_prop_ro(
          "array", [](PyAccess& a) { return a.view.is_valid() ? a.view : nb::none(); },
          "A view of the data's memory with the array's shape (None once released)")
      .def_prop_ro("released", [](PyAccess& a) { return a.owner == nullptr; })
      .def("release", &PyAccess::release, "Lets the tasks that wait for the data run")
      .def("__enter__", [](PyAccess& a) { return a.view; })
      .def("__exit__", [](PyAccess& a, nb::args) { a.release(); });

  nb::class_<PyRuntime>(
      m, "Runtime",
      "The compiled task runtime under conveyor.Runtime, which documents it (use that).")
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
      .def("discard", &PyRuntime::discard, nb::arg("data"))
      .def("submit", &PyRuntime::submit, nb::arg("fn"), nb::arg("accesses"),
           nb::arg("priority") = 0, nb::arg("name") = "",
           "Submits a task over [(data, 'r'|'w'|'rw'), ...] and returns its id. fn: a Python\n"
           "callable, run on a CPU worker as fn(*views); or a built-in codelet's name, run on any\n"
           "worker that implements it: 'potrf' (A), 'trsm' (A_kk, A_ik), 'syrk' (A_ik, A_ii),\n"
           "'gemm' (A_ik, A_jk, A_ij: A_ij -= A_ik A_jk^T), on Fortran-ordered float64/float32\n"
           "tiles, whose modes may be left out: rt.submit('gemm', [a, b, c])")
      .def("_submit_many", &PyRuntime::submit_many, nb::arg("fn"), nb::arg("accesses"),
           nb::arg("count"), "Benchmarks only: a built-in task `count` times, submitted from C++")
      .def("wait", &PyRuntime::wait, "Waits for every task; raises conveyor.Error on a failure")
      .def("_wait_task", &PyRuntime::wait_task, nb::arg("id"), nb::arg("timeout"),
           "Waits for one task (timeout < 0: no limit); conveyor.Task.wait documents it")
      .def("_task_done", &PyRuntime::task_done, nb::arg("id"),
           "Whether one task has finished; conveyor.Task.done documents it")
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
