// conveyor.linalg's compiled half: the tile Cholesky of apps/cholesky, with its built-in codelets
// (OpenBLAS/LAPACKE on CPU workers, cuBLAS/cuSOLVER on CUDA devices, an OpenCL gemm), and the tile
// Householder QR of apps/qr (LAPACKE on CPU workers, its own OpenCL and CUDA kernels), each on a
// runtime of its own over a Fortran-ordered matrix, in place: a NumPy array, or a matrix in the
// memory of one of the runtime's GPUs, handed over by its address.
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "cholesky/cholesky.hpp"
#include "cholesky/cholesky_cpu_kernels.hpp"
#include "cholesky/cholesky_run.hpp"
#include "common/blas_threads.hpp"
#include "common/block_size.hpp"
#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "core.hpp"
#include "qr/q_forming.hpp"
#include "qr/qr.hpp"
#include "qr/qr_check.hpp"
#include "qr/qr_run.hpp"

namespace nb = nanobind;

namespace conveyor::python {
namespace {

using Matrix = nb::ndarray<nb::numpy, nb::ndim<2>, nb::f_contig, nb::device::cpu>;
namespace cholesky = apps::cholesky;

// The order of the first leading minor of the whole matrix that a CPU potrf found not positive
// definite, from the tile's first column and the kernel's message ("leading minor J of W" from
// LAPACKE, 1-based; "pivot J" from the plain loops, 0-based); 0 when the message says neither.
long failing_minor(long first_column, const std::string& message) {
  for (auto [key, base] : {std::pair<const char*, long>{"leading minor ", 0}, {"pivot ", 1}}) {
    std::size_t at = message.find(key);
    if (at == std::string::npos) continue;
    char* end = nullptr;
    long j = std::strtol(message.c_str() + at + std::strlen(key), &end, 10);
    if (end != message.c_str() + at + std::strlen(key)) return first_column + j + base;
  }
  return 0;
}

// The apps' potrf on CPU workers, which also records where the matrix failed: a CPU worker's
// buffer is the registered view of the matrix itself (the tile at row = column = offset / n).
template <typename T>
void record_failing_minor(cholesky::CholeskyCodelets& codelets, const T* matrix, int n,
                          std::atomic<long>& minor) {
  codelets.potrf.cpu([matrix, n, &minor](const TaskContext& t) {
    const Buffer& a = t.buffer(0);
    try {
      cholesky::cpu_potrf<T>(static_cast<int>(a.rows), t.data<T>(0), static_cast<int>(a.ld));
    } catch (const Error& e) {
      const std::ptrdiff_t offset = t.data<T>(0) - matrix;
      if (offset >= 0 && offset < static_cast<std::ptrdiff_t>(n) * n && offset % n == offset / n)
        minor = failing_minor(offset / n, e.what());
      throw;
    }
  });
}

// (0, "") when the factorisation succeeded; (k, the runtime's message) when the matrix is not
// positive definite, k the order of the first leading minor that is not (-1: not known, as when a
// device's potrf failed, which reports nothing, or left L's diagonal non-finite or not positive).
using Outcome = std::pair<long, std::string>;

// The apps' factorize on the n x n matrix at `data` (its home: host memory, or a device's), with
// the tile rule of `conveyor cholesky` when block <= 0. (0, "") when it succeeded; (k, the
// runtime's message) when the matrix is not positive definite, k as in Outcome (a CPU potrf
// reports the minor only for a host matrix: on a device home its buffer is a host copy of a tile).
template <typename T>
Outcome run_cholesky(T* data, int n, int block, RuntimeOptions options,
                     const cholesky::MatrixHome& home) {
  std::atomic<long> minor{0};
  try {
    // One task per worker: a multithreaded BLAS inside each would oversubscribe the cores (the
    // CLI does the same); every thread again afterwards, for the caller's other BLAS calls.
    apps::common::use_single_threaded_blas();
    struct AllThreadsAfter {
      ~AllThreadsAfter() { apps::common::use_all_threads_blas(); }
    } all_threads_after;
    const auto precision =
        std::is_same_v<T, float> ? cholesky::Precision::Single : cholesky::Precision::Double;
    if (block <= 0) {  // the tile rule of `conveyor cholesky`, models and all
      cholesky::RunConfig config;
      config.n = n;
      config.precision = precision;
      config.runtime = options;
      block = cholesky::block_for(config);
    }
    Runtime rt(std::move(options));
    cholesky::CholeskyCodelets codelets(precision);
    if (home.on_host()) record_failing_minor<T>(codelets, data, n, minor);
    cholesky::factorize<T>(rt, codelets, data, n, n, block, home);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    const std::string message = e.what();
    if (minor > 0) return {minor.load(), message};
    if (message.find("not positive definite") != std::string::npos) return {-1, message};
    throw;
  }
  return {0, ""};
}

template <typename T>
Outcome factorize_in_place(Matrix& a, int block, RuntimeOptions options, bool zero_upper) {
  const int n = static_cast<int>(a.shape(0));
  T* data = static_cast<T*>(a.data());
  const auto at = [&](int i, int j) -> T& { return data[static_cast<std::size_t>(j) * n + i]; };
  nb::gil_scoped_release release;  // touches no Python object: other Python threads run meanwhile
  // numpy.linalg.cholesky's form: L with zeros above the diagonal (already there when only the
  // lower triangle was copied into zeros); potrf leaves the upper triangle as it is.
  if (zero_upper)
    for (int j = 1; j < n; ++j) std::fill(&at(0, j), &at(0, j) + j, T(0));
  // A NaN or an infinity would reach L without any kernel failing.
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i)
      if (!std::isfinite(at(i, j)))
        throw UsageError("cholesky: the matrix has a non-finite entry (" +
                         std::to_string(static_cast<double>(at(i, j))) + " at [" +
                         std::to_string(i) + ", " + std::to_string(j) + "])");
  if (Outcome failed = run_cholesky<T>(data, n, block, std::move(options), {}); failed.first != 0)
    return failed;
  for (int j = 0; j < n; ++j)
    if (!(at(j, j) > 0) || !std::isfinite(at(j, j)))
      return {-1, "cholesky: L[" + std::to_string(j) + ", " + std::to_string(j) + "] is " +
                      std::to_string(static_cast<double>(at(j, j))) +
                      " after the factorisation (a potrf on a device reports no failure)"};
  return {0, ""};
}

// The runtime of one factorisation, from conveyor.linalg's keywords.
RuntimeOptions linalg_options(nb::handle devices, int cpus, std::string scheduler,
                              std::vector<std::string> offload = {}) {
  RuntimeOptions options;
  options.devices = device_list(devices);
  options.cpus = cpus;
  options.scheduler = std::move(scheduler);
  options.offload = std::move(offload);
  return options;
}

Outcome cholesky_in_place(Matrix a, int block, nb::handle devices, int cpus, std::string scheduler,
                          std::vector<std::string> offload, bool zero_upper) {
  if (a.shape(0) != a.shape(1))
    throw UsageError("cholesky: the matrix must be square (got " + std::to_string(a.shape(0)) +
                     " x " + std::to_string(a.shape(1)) + ")");
  if (a.shape(0) == 0 || a.shape(0) > static_cast<std::size_t>(INT_MAX / 2))
    throw UsageError("cholesky: n = " + std::to_string(a.shape(0)) + " is out of range");
  RuntimeOptions options = linalg_options(devices, cpus, std::move(scheduler), std::move(offload));
  if (a.dtype() == nb::dtype<double>())
    return factorize_in_place<double>(a, block, std::move(options), zero_upper);
  if (a.dtype() == nb::dtype<float>())
    return factorize_in_place<float>(a, block, std::move(options), zero_upper);
  throw UsageError("cholesky: the matrix must hold float64 or float32");
}

// Turns the BLAS back to one thread per task for the runtime's tasks, and to every thread when it
// goes (the caller's own BLAS calls, and form_q's sequential kernels, want them all).
struct SingleThreadedBlasWhileAlive {
  SingleThreadedBlasWhileAlive() { apps::common::use_single_threaded_blas(); }
  ~SingleThreadedBlasWhileAlive() { apps::common::use_all_threads_blas(); }
};

// A rows x cols Fortran-ordered NumPy array that owns `values`.
template <typename T>
nb::object fortran_array(std::unique_ptr<std::vector<T>> values, int rows, int cols) {
  T* data = values->data();
  nb::capsule owner(values.get(), [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  values.release();  // the capsule owns it now
  const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
  const std::int64_t strides[2] = {1, static_cast<std::int64_t>(rows)};
  return nb::cast(nb::ndarray<nb::numpy, T>(data, 2, shape, owner, strides));
}

// The tile QR of apps/qr on an m x n matrix (m >= n) in place: R ends in its upper triangle
// (zeros written below it on the host), and with q_columns > 0 (n: the reduced Q, m: the complete
// one) the explicit Q, m x q_columns in Fortran order, is returned, else None.
// The app's own checks, as `conveyor qr` makes them: devices that exist and can run the kernels in
// this precision, workers at all, LAPACKE in the build (form_q needs it too).
template <typename T>
apps::qr::RunConfig checked_qr_config(int m, int n, int block, int ib, RuntimeOptions options) {
  apps::qr::RunConfig config;
  config.m = m;
  config.n = n;
  config.block = block;
  config.ib = ib;
  config.precision =
      std::is_same_v<T, float> ? apps::qr::Precision::Single : apps::qr::Precision::Double;
  config.runtime = std::move(options);
  apps::qr::validate(config, /*needs_memory=*/false);
  return config;
}

// The factors for config's matrix, in the tile size and domains the app would choose.
template <typename T>
apps::qr::TFactors<T> qr_factors(const apps::qr::RunConfig& config) {
  const int block = apps::qr::block_for(config);
  return apps::qr::TFactors<T>(apps::qr::MatrixSize{config.rows(), config.n}, block,
                               apps::qr::inner_block(config, block),
                               apps::qr::domains_for(config, block));
}

template <typename T>
nb::object qr_typed(Matrix& a, int block, int ib, RuntimeOptions options, int q_columns) {
  namespace qr = apps::qr;
  const int m = static_cast<int>(a.shape(0)), n = static_cast<int>(a.shape(1));
  T* data = static_cast<T*>(a.data());
  qr::RunConfig config = checked_qr_config<T>(m, n, block, ib, std::move(options));
  qr::TFactors<T> factors = qr_factors<T>(config);
  const int cpu_workers = apps::common::cpu_workers(config.runtime);
  std::unique_ptr<std::vector<T>> q;
  {
    nb::gil_scoped_release release;
    {
      SingleThreadedBlasWhileAlive blas_threads;
      Runtime rt(std::move(config.runtime));
      qr::QrCodelets codelets(config.precision);
      qr::factorize<T>(rt, codelets, data, m, factors);
      // Q by tasks, a chain per tile column of Q (and per domain) on the workers (LAPACKE's
      // kernels on the CPUs, the update kernels on devices); with fewer chains than CPU workers,
      // on the host in sequence with every BLAS thread (below), which keeps them all busy.
      const int q_tiles = (q_columns + factors.block() - 1) / factors.block();
      if (q_columns > 0 && cpu_workers > 0 && q_tiles * factors.domains() >= cpu_workers)
        q = std::make_unique<std::vector<T>>(
            qr::form_q<T>(rt, qr::QFormingCodelets(config.precision), data, m, factors, q_columns));
    }
    if (q_columns > 0 && !q)
      q = std::make_unique<std::vector<T>>(qr::form_q<T>(data, m, factors, q_columns));
    // numpy.linalg.qr's R: zeros below the diagonal, where the reflectors were.
    for (int j = 0; j < n; ++j)
      std::fill(data + static_cast<std::size_t>(j) * m + j + 1,
                data + static_cast<std::size_t>(j) * m + m, T(0));
  }
  if (!q) return nb::none();
  return fortran_array(std::move(q), m, q_columns);
}

// An m x n matrix the tile QR can take, and a Q of 0 (none), n or m columns.
void check_qr_shape(std::size_t m, std::size_t n, int block, int ib, int q_columns) {
  if (m < n)
    throw UsageError("qr: the matrix must have at least as many rows as columns (got " +
                     std::to_string(m) + " x " + std::to_string(n) + ")");
  if (n == 0 || m > static_cast<std::size_t>(INT_MAX / 2))
    throw UsageError("qr: a " + std::to_string(m) + " x " + std::to_string(n) +
                     " matrix is out of range");
  if (block < 0) throw UsageError("qr: block must be 0 (chosen) or positive");
  if (ib < 0) throw UsageError("qr: ib must be 0 (chosen) or positive");
  if (q_columns != 0 && q_columns != static_cast<int>(n) && q_columns != static_cast<int>(m))
    throw UsageError("qr: Q has n or m columns (or none: 0)");
}

nb::object qr_in_place(Matrix a, int block, int ib, nb::handle devices, int cpus,
                       std::string scheduler, int q_columns) {
  check_qr_shape(a.shape(0), a.shape(1), block, ib, q_columns);
  RuntimeOptions options = linalg_options(devices, cpus, std::move(scheduler));
  if (a.dtype() == nb::dtype<double>())
    return qr_typed<double>(a, block, ib, std::move(options), q_columns);
  if (a.dtype() == nb::dtype<float>())
    return qr_typed<float>(a, block, ib, std::move(options), q_columns);
  throw UsageError("qr: the matrix must hold float64 or float32");
}

// ---- matrices in device memory ----------------------------------------------------------------
// A Fortran-ordered n x n matrix that the Python side made on a GPU (with CuPy's or PyTorch's own
// operations) and hands over by its address: factorised where it lives, each tile a strided
// device home on `device` (apps' MatrixHome), so its tasks on that device copy nothing in.

// The matrix's address as a T*; the factorisation's registration checks that it is memory of
// its device (CUDA: cudaPointerGetAttributes).
template <typename T>
T* device_pointer(std::uintptr_t address, const char* what) {
  if (address == 0 || address % alignof(T) != 0)
    throw UsageError(std::string(what) + ": not a device matrix address");
  return reinterpret_cast<T*>(address);
}

// (0, "") or (-1, the runtime's message) when the matrix is not positive definite: which leading
// minor failed is not known on a device. A potrf on a device reports no failure: the caller
// checks L's diagonal with the array's library.
template <typename T>
Outcome cholesky_device_typed(std::uintptr_t address, int n, const std::string& device, int block,
                              RuntimeOptions options) {
  T* data = device_pointer<T>(address, "cholesky");
  nb::gil_scoped_release release;
  return run_cholesky<T>(data, n, block, std::move(options), cholesky::MatrixHome::on(device));
}

void check_order(std::size_t n, const char* what) {
  if (n == 0 || n > static_cast<std::size_t>(INT_MAX / 2))
    throw UsageError(std::string(what) + ": n = " + std::to_string(n) + " is out of range");
}

Outcome cholesky_on_device(std::uintptr_t address, std::size_t n, const std::string& dtype,
                           const std::string& device, int block, nb::handle devices, int cpus,
                           std::string scheduler, std::vector<std::string> offload) {
  check_order(n, "cholesky");
  RuntimeOptions options = linalg_options(devices, cpus, std::move(scheduler), std::move(offload));
  const int order = static_cast<int>(n);
  if (dtype == "float64")
    return cholesky_device_typed<double>(address, order, device, block, std::move(options));
  if (dtype == "float32")
    return cholesky_device_typed<float>(address, order, device, block, std::move(options));
  throw UsageError("cholesky: the matrix must hold float64 or float32");
}

// The tile QR of an m x n device matrix in place: R and the reflectors stay in the device memory
// (the T factors are host data). With q_columns > 0, Q (m x q_columns, Fortran order, at
// q_address on the same device, the first q_columns columns of the identity on entry) is formed
// there by the runtime's tasks (qr::form_q with the device home): nothing crosses but the T
// factors. Zeros below R's diagonal are the caller's to write, on the device.
template <typename T>
void qr_device_typed(std::uintptr_t address, int m, int n, const std::string& device, int block,
                     int ib, RuntimeOptions options, std::uintptr_t q_address, int q_columns) {
  namespace qr = apps::qr;
  T* data = device_pointer<T>(address, "qr");
  T* q = q_columns > 0 ? device_pointer<T>(q_address, "qr (Q)") : nullptr;
  qr::RunConfig config = checked_qr_config<T>(m, n, block, ib, std::move(options));
  qr::TFactors<T> factors = qr_factors<T>(config);
  nb::gil_scoped_release release;
  SingleThreadedBlasWhileAlive blas_threads;
  Runtime rt(std::move(config.runtime));
  qr::QrCodelets codelets(config.precision);
  const auto home = qr::MatrixHome::on(device);
  qr::factorize<T>(rt, codelets, data, m, factors, true, home);
  if (q)
    qr::form_q<T>(rt, qr::QFormingCodelets(config.precision), data, m, factors, q_columns, q, m,
                  home);
}

void qr_on_device(std::uintptr_t address, std::size_t m, std::size_t n, const std::string& dtype,
                  const std::string& device, int block, int ib, nb::handle devices, int cpus,
                  std::string scheduler, std::uintptr_t q_address, int q_columns) {
  check_qr_shape(m, n, block, ib, q_columns);
  RuntimeOptions options = linalg_options(devices, cpus, std::move(scheduler));
  const int rows = static_cast<int>(m), cols = static_cast<int>(n);
  if (dtype == "float64")
    return qr_device_typed<double>(address, rows, cols, device, block, ib, std::move(options),
                                   q_address, q_columns);
  if (dtype == "float32")
    return qr_device_typed<float>(address, rows, cols, device, block, ib, std::move(options),
                                  q_address, q_columns);
  throw UsageError("qr: the matrix must hold float64 or float32");
}

using RowMajor = nb::ndarray<nb::numpy, nb::ndim<2>, nb::c_contig, nb::device::cpu, nb::ro>;

// dst's lower triangle (column-major) = src's (row-major), by 64 x 64 tiles so that both sides
// stay in cache: NumPy's own strided copy into Fortran order reads a whole cache line per element
// (0.58 s of a 2.6 s factorisation at n = 8192 on 2 cores). dst's strict upper triangle is left.
// Columns [first, last) of the lower triangle.
template <typename T>
void copy_lower_columns(const T* src, T* dst, std::size_t n, std::size_t first, std::size_t last) {
  constexpr std::size_t kTile = 64;
  for (std::size_t j0 = first; j0 < last; j0 += kTile)
    for (std::size_t i0 = j0; i0 < n; i0 += kTile)
      for (std::size_t j = j0; j < std::min({j0 + kTile, last, n}); ++j)
        for (std::size_t i = std::max(i0, j); i < std::min(i0 + kTile, n); ++i)
          dst[j * n + i] = src[i * n + j];
}

// The copy on every core (the factorisation that follows would use them all anyway): column
// ranges of equal triangle area, in whole 64-column tiles, one per thread (0.15 -> 0.08 s at
// n = 8192 on 2 cores, docs/results/python.md).
template <typename T>
void copy_lower(const T* src, T* dst, std::size_t n) {
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  std::size_t first = 0;
  for (std::size_t k = 1; k <= threads && first < n; ++k) {
    // Columns [0, j) hold the share 1 - (1 - j/n)^2 of the triangle: j for a share of k/threads.
    double share = static_cast<double>(k) / static_cast<double>(threads);
    auto last = static_cast<std::size_t>(static_cast<double>(n) * (1.0 - std::sqrt(1.0 - share)));
    last = k == threads ? n : std::min(n, (last + 63) / 64 * 64);
    if (last > first) pool.emplace_back(copy_lower_columns<T>, src, dst, n, first, last);
    first = last;
  }
  for (std::thread& t : pool) t.join();
}

void copy_lower_to_fortran(RowMajor src, Matrix dst) {
  const std::size_t n = src.shape(0);
  if (src.shape(1) != n || dst.shape(0) != n || dst.shape(1) != n || src.dtype() != dst.dtype())
    throw UsageError("copy_lower_to_fortran: two n x n matrices of one dtype");
  nb::gil_scoped_release release;
  if (src.dtype() == nb::dtype<double>())
    copy_lower(static_cast<const double*>(src.data()), static_cast<double*>(dst.data()), n);
  else if (src.dtype() == nb::dtype<float>())
    copy_lower(static_cast<const float*>(src.data()), static_cast<float*>(dst.data()), n);
  else
    throw UsageError("copy_lower_to_fortran: float64 or float32");
}

}  // namespace

void add_linalg(nb::module_& m) {
  m.def("copy_lower_to_fortran", &copy_lower_to_fortran, nb::arg("src"), nb::arg("dst"),
        "Copies the lower triangle of a C-ordered matrix into a Fortran-ordered one");
  m.def("cholesky_in_place", &cholesky_in_place, nb::arg("a"), nb::arg("block"), nb::arg("devices"),
        nb::arg("cpus"), nb::arg("scheduler"), nb::arg("offload"), nb::arg("zero_upper") = true,
        "Factorises a Fortran-ordered float64/float32 matrix in place into L; zero_upper: zeros\n"
        "written above the diagonal first (False when they are there already). Returns (0, '')\n"
        "or, when the matrix is not positive definite, (k, message): k the order of the first\n"
        "leading minor that is not (-1: not known)");
  m.def("better_openblas_core", &apps::common::better_openblas_core,
        "OPENBLAS_CORETYPE's better value where OpenBLAS fell back to its generic kernels on this\n"
        "CPU (SkylakeX, Haswell), else ''; OpenBLAS reads it only when loaded");
  m.def("qr_in_place", &qr_in_place, nb::arg("a"), nb::arg("block"), nb::arg("ib"),
        nb::arg("devices"), nb::arg("cpus"), nb::arg("scheduler"), nb::arg("q_columns"),
        "Factorises a Fortran-ordered m x n float64/float32 matrix (m >= n) in place with the\n"
        "tile QR: R in its upper triangle, zeros below; returns Q's first q_columns columns (n:\n"
        "reduced, m: complete; Fortran order) or None when q_columns is 0");
  m.def("cholesky_on_device", &cholesky_on_device, nb::arg("address"), nb::arg("n"),
        nb::arg("dtype"), nb::arg("device"), nb::arg("block"), nb::arg("devices"), nb::arg("cpus"),
        nb::arg("scheduler"), nb::arg("offload"),
        "Factorises the Fortran-ordered n x n float64/float32 matrix at `address` in the memory\n"
        "of `device` (one of `devices`) into L where it lives; the strict upper triangle is left\n"
        "as it was. Returns (0, '') or (-1, message) when it is not positive definite (a potrf on\n"
        "a device reports nothing: check L's diagonal)");
  m.def("qr_on_device", &qr_on_device, nb::arg("address"), nb::arg("m"), nb::arg("n"),
        nb::arg("dtype"), nb::arg("device"), nb::arg("block"), nb::arg("ib"), nb::arg("devices"),
        nb::arg("cpus"), nb::arg("scheduler"), nb::arg("q_address"), nb::arg("q_columns"),
        "Factorises the Fortran-ordered m x n float64/float32 matrix (m >= n) at `address` in the\n"
        "memory of `device` (one of `devices`) with the tile QR where it lives: R in its upper\n"
        "triangle, the reflectors below (not zeroed); with q_columns > 0, forms Q's first\n"
        "q_columns columns in the Fortran-ordered m x q_columns matrix at q_address on the same\n"
        "device, which holds those columns of the identity on entry");
}

}  // namespace conveyor::python
