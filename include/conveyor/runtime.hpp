#pragma once
/// The task runtime: pinned CPU workers plus one driver per device (CUDA, OpenCL), a scheduler that
/// places ready tasks, dependencies inferred from submission order, and automatic, coherent data
/// movement between the host and device memories (seed 003).
///
///   conveyor::RuntimeOptions options;
///   options.devices = {"opencl:0"};
///   options.scheduler = "offload";
///   options.offload = {"scale"};
///   conveyor::Runtime rt(options);
///   std::vector<float> v(1 << 20, 1.0f);
///   conveyor::Data x = rt.register_vector(v.data(), v.size(), "x");
///   rt.submit(scale, {{x, conveyor::Access::ReadWrite}});   // runs on opencl:0
///   rt.submit(print, {{x, conveyor::Access::Read}});        // runs on a CPU after a copy back
///   rt.wait_all();                                          // rethrows a task's exception
///   std::cout << rt.stats().d2h_copies << "\n";
///   rt.unregister(x);                                       // v holds the latest values
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conveyor/access.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/data.hpp"
#include "conveyor/device.hpp"

namespace conveyor {

namespace device {
class VirtualClock;  // internal: the virtual time of simulated platforms
}

/// How replicas are kept (seed 003, section 3.3).
enum class Coherence {
  /// Copy every input of a device task in and every output back, around each device task (the
  /// seed's "without optimisation").
  Naive,
  /// MSI: copy only what the destination lacks; write back at wait_all / unregister (default).
  Coherent
};
/// How data moves from one device to another.
enum class DeviceCopy {
  HostStaged,  ///< device -> host -> device (default; counts a D2H and an H2D)
  PeerCopy,    ///< a direct device-to-device copy where the backend supports it (CUDA), else staged
  /// Where peer-copy would copy from a peer, the task uses the peer's replica in place: the kernel
  /// reads and writes it over the link (seed 003 method 1); no copy is made or counted. Simulated
  /// platforms model it; real CUDA devices would need cudaDeviceEnablePeerAccess, which the CUDA
  /// driver does not call yet, so they peer-copy instead.
  PeerDirect
};

std::string_view to_string(Coherence c);
std::string_view to_string(DeviceCopy c);
/// "naive" / "coherent"; throws UsageError otherwise.
Coherence parse_coherence(std::string_view text);
/// "host-staged" / "peer-copy" / "peer-direct"; throws UsageError otherwise.
DeviceCopy parse_device_copy(std::string_view text);

struct RuntimeOptions {
  /// CPU workers, one pinned thread each: -1 = one per core; 0 = none (device tasks only).
  int cpus = -1;
  /// Pin CPU workers to cores (one per core, compact order).
  bool pin = true;
  /// Devices to use besides the CPUs: "opencl:0", "cuda:1", or "all"; empty = CPUs only.
  std::vector<std::string> devices;
  /// "model" (where the task is predicted to finish first: worker availability + copies +
  /// modelled execution time, from measured task times), "model-ready" (the same, and devices
  /// take first the queued tasks whose data is in place), "eager" (any idle worker that has an
  /// implementation), "round-robin" (device-capable tasks dealt to the devices in turn; the
  /// seed's baseline), "offload" (codelets named in `offload` on devices, the rest on CPUs),
  /// "locality" (the space already holding most of the task's bytes). "auto" (default): "offload"
  /// when devices and `offload` are given, "model" when devices are, else "eager".
  std::string scheduler = "auto";
  /// Codelet names placed on devices by "offload" (and limiting "round-robin" and "locality" to
  /// them when not empty); other codelets run on CPUs.
  std::vector<std::string> offload;
  Coherence coherence = Coherence::Coherent;
  DeviceCopy device_copy = DeviceCopy::HostStaged;
  /// Tasks each device driver keeps enqueued ahead of the device (copies and kernels). The host
  /// hears of a completion some time after it (on the H200 node measured, 98 us), so a device
  /// whose tasks are short idles unless enough are enqueued to cover that; more than needed makes
  /// a task that becomes ready later (the critical path) wait behind them, and with several
  /// devices commits tasks to a lane early instead of to the device free first. kInFlightAuto
  /// (default): kInFlightOneDevice with one device, kInFlightSeveral with more, and on a device
  /// whose round trip is known (DeviceDriver::completion_seconds) up to kInFlightMost while the
  /// lane holds less predicted work (model scheduler) than 1.5 round trips and the next task fits
  /// in device memory without evicting, so that short tasks cover the round trip and long ones do
  /// not queue ahead of later critical-path tasks (measured on the simulated nodes:
  /// docs/results/runtime.md, "Tasks in flight"); options() gives the count used.
  int device_tasks_in_flight = kInFlightAuto;
  static constexpr int kInFlightAuto = -1;
  static constexpr int kInFlightOneDevice = 8;
  static constexpr int kInFlightSeveral = 4;
  static constexpr int kInFlightMost = 32;
  /// Run-ahead: how many tasks each device driver may enqueue behind predecessors still on its
  /// own lane (their completion not yet seen by the host), ordered by the device's queues instead
  /// of a host wake-up per dependency; they come on top of device_tasks_in_flight. 0 = off: a task
  /// is enqueued only once its predecessors have completed. Off under Coherence::Naive (its copies
  /// home and back go through the host between tasks). A failure is still reported against the
  /// task that failed; tasks enqueued behind it end as cancelled ("dependent task not run").
  /// kRunAheadAuto (the default): 16 deep; with several devices, a lane also takes a task ahead
  /// only while it holds less predicted work (model scheduler) than its device's round trip, the
  /// time from the end of its work to the host learning of it (DeviceDriver::completion_seconds:
  /// a simulated platform's complete_us; the CUDA and OpenCL drivers measure theirs when they
  /// open). Measured on the twins (docs/results/runtime.md): on one GPU deeper
  /// cuts the cost of chains of small tasks but holds later critical-path tasks behind the lane's
  /// backlog, 16 best; with several devices a task bound early to its predecessor's device cannot
  /// go to the one free first once it is ready, and every fixed depth was slower than off on the
  /// 4xV100 node, which models no round trip.
  static constexpr int kRunAheadAuto = -1;
  static constexpr int kRunAheadDefaultDepth = 16;
  int run_ahead = kRunAheadAuto;
  /// Bytes each device may allocate for replicas; 0 = the device's memory. Device memory is a
  /// cache of the host: when a task's buffers do not fit, replicas no task in flight uses are
  /// evicted (those the queued tasks need furthest ahead first, then least recently used;
  /// Modified ones are written home first) and the task waits for that, so graphs larger than
  /// the device run. Only a task whose own buffers exceed it fails. Lower it to emulate a smaller
  /// device (`--device-memory` on the CLI).
  std::uint64_t device_memory_limit = 0;
  /// Early write-back: when a device task that wrote a data ends and no task submitted so far
  /// uses the data again, its host copy is brought up to date at once on the device-to-host link
  /// (asynchronously, while kernels run), so that wait_all does not end with a serial tail of
  /// copies. The device replica stays valid. Off by default: when the program submits more work
  /// on that data later, the copy was not needed, so copy counts can grow (never with the whole
  /// graph submitted before it runs, as the seed's Cholesky does).
  bool early_write_back = false;
  /// Prefetch: when a ready task is queued for a device worker that is busy, its inputs start
  /// moving to that device's memory on the device's lane while the tasks ahead of it run (by the
  /// device's driver thread, for the next device_tasks_in_flight queued tasks). Only into free
  /// device memory: a prefetch never evicts, and its replicas are clean, so a task that needs the
  /// room evicts them at once (last among clean replicas: a queued task needs them). A prefetched
  /// replica is an ordinary Shared one (invalidated by writes elsewhere); RuntimeStats counts the
  /// prefetches and how many were used or dropped. Copy counts are unchanged where memory is not
  /// short.
  bool prefetch = true;
  /// Record a Chrome trace (Runtime::write_trace).
  bool trace = false;
  /// Model schedulers: the performance models file, read at start and written at the end. Empty
  /// = perfmodels.json next to the probe's calibration ($XDG_CACHE_HOME/conveyor or
  /// ~/.cache/conveyor); "none" = models kept in memory for this runtime only.
  std::string perf_models;
  /// Model schedulers: the probe's calibration, for the link models (empty = the default path).
  std::string calibration;
  /// Model schedulers: measure every codelet on every kind of worker, at each task size, a few
  /// times before trusting the models (placement spreads tasks over the workers meanwhile).
  /// Without it, only a (codelet, device) with fewer than 3 measurements is calibrated.
  bool calibrate = false;
  /// A simulated platform file (docs/simulation.md): its devices replace `devices`, and the runtime
  /// runs in virtual time on its models; Runtime::seconds() is then the simulated time.
  std::string platform;
  /// How many of the platform's devices to use (the first ones); 0 = all, kPlatformHostOnly =
  /// none (its host's cores only).
  int platform_devices = 0;
  static constexpr int kPlatformHostOnly = -1;
  /// Also run the tasks (CPU implementations, on the host and for the simulated devices) and the
  /// copies, for correctness checks on small cases; otherwise no task function runs and no data
  /// is touched.
  bool platform_run_kernels = false;
  /// Simulated clusters only (docs/simulated-clusters.md): the virtual clock that every rank's
  /// runtime in the process shares, set by run_simulated_cluster. Leave it empty.
  std::shared_ptr<device::VirtualClock> platform_clock;
  /// Tasks submitted but not finished at most: past it submit() waits (it never fails) until
  /// enough tasks finish, so that a graph of any size runs in bounded memory. 0 = the environment
  /// variable CONVEYOR_MAX_SUBMITTED when set, else one task per 256 KiB of the host's memory (at
  /// least 100 000). submit() does not wait when waiting could stall the graph: called from inside
  /// a task, while a HostAccess from acquire() is open, or while a deferred task (one that ends
  /// through its Completion, as the MPI layer's messages do) is outstanding.
  std::uint64_t max_submitted = 0;
};

/// The runtime devices that `ids` (RuntimeOptions::devices) names, in order: "all" expanded to
/// every non-CPU device found here, each device once. Throws UsageError for "cpu" (the CPUs are
/// the runtime's workers: RuntimeOptions::cpus). Tools that take a device list ask this rather
/// than expanding it themselves.
std::vector<std::string> expand_devices(const std::vector<std::string>& ids);

/// The scheduler a Runtime made with `options` runs: options.scheduler, or what "auto" chooses
/// ("offload" when devices and `offload` are given, "model" when devices are, else "eager"; a
/// simulated platform's devices count as devices).
std::string resolved_scheduler(const RuntimeOptions& options);

/// How many devices the simulated platform file (RuntimeOptions::platform) has; throws UsageError
/// with one line when it cannot be read.
std::size_t platform_device_count(const std::string& platform_file);
/// How many CPU cores (host.cores) the simulated platform file has; UsageError as above.
int platform_host_cores(const std::string& platform_file);
/// The simulated platform file's device ids, in order ("h200:0", ...); UsageError as above.
std::vector<std::string> platform_device_ids(const std::string& platform_file);

/// Copies over one link (an ordered pair of memory spaces).
struct LinkStats {
  std::string from;  ///< "host", "opencl:0", ...
  std::string to;
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
};

/// Allocations in one device memory space.
struct SpaceStats {
  std::string name;               ///< "opencl:0", ...
  std::uint64_t allocations = 0;  ///< real device allocations
  std::uint64_t cache_hits = 0;   ///< allocations served by the cache of freed blocks
  std::uint64_t evictions = 0;    ///< replicas freed to make room for others
  std::uint64_t write_backs = 0;  ///< evicted replicas copied home first (also D2H copies)
  std::uint64_t write_back_bytes = 0;
  std::uint64_t prefetches = 0;  ///< copies in made by prefetches (also H2D copies)
  std::uint64_t prefetch_bytes = 0;
  std::uint64_t prefetches_used = 0;     ///< prefetched replicas a task then used
  std::uint64_t prefetches_dropped = 0;  ///< prefetched replicas evicted or invalidated unused
  std::uint64_t peak_bytes = 0;          ///< most bytes allocated at once (cached blocks included)
  std::uint64_t limit_bytes = 0;  ///< the space's capacity (device_memory_limit or the device's)
};

/// Per worker: tasks run and the time spent in them.
struct WorkerStats {
  std::string name;  ///< "cpu worker 0", "opencl:0 worker"
  std::uint64_t tasks = 0;
  double busy_seconds = 0;  ///< CPU: time in task functions; devices: time with work enqueued
  /// Model schedulers: the execution time the models predicted for the tasks it ran.
  double predicted_seconds = 0;
  /// Devices: the round trip of their completions, from the end of the work on the device to the
  /// host learning of it (measured by the CUDA and OpenCL drivers when they open; a simulated
  /// platform's complete_us); -1 for CPU workers and devices that report none.
  double round_trip_seconds = -1;
};

/// What the runtime did since it started (or since reset_stats). The copy counts are the seed's
/// tables 3 and 5.
struct RuntimeStats {
  std::uint64_t h2d_copies = 0, h2d_bytes = 0;
  std::uint64_t d2h_copies = 0, d2h_bytes = 0;
  std::uint64_t d2d_copies = 0, d2d_bytes = 0;  ///< peer copies only (host-staged count as two)
  std::uint64_t device_allocations = 0;         ///< real device allocations
  std::uint64_t allocation_cache_hits = 0;      ///< allocations served by the cache of freed blocks
  std::uint64_t evictions = 0;                  ///< device replicas freed to make room
  std::uint64_t write_backs = 0;  ///< evictions that copied Modified data home (counted in d2h too)
  std::uint64_t write_back_bytes = 0;
  /// Prefetches (RuntimeOptions::prefetch): copies in started when a task was queued for a
  /// device (counted in h2d too), and how many of those replicas a task used or lost unused.
  std::uint64_t prefetches = 0;
  std::uint64_t prefetch_bytes = 0;
  std::uint64_t prefetches_used = 0;
  std::uint64_t prefetches_dropped = 0;
  std::uint64_t peak_device_bytes = 0;  ///< the largest peak of any device space
  std::uint64_t tasks = 0;              ///< tasks run (not counting acquires)
  std::vector<LinkStats> links;         ///< links with at least one copy
  std::vector<SpaceStats> spaces;       ///< one per device
  std::vector<WorkerStats> workers;
  std::string scheduler;                ///< the policy used ("auto" resolved)
  std::uint64_t calibration_tasks = 0;  ///< model schedulers: tasks placed to measure a model
  std::uint64_t max_submitted = 0;      ///< RuntimeOptions::max_submitted as resolved
  std::uint64_t submit_waits = 0;       ///< times submit() waited for room under it
  /// Device tasks enqueued behind predecessors still on their device's lane (run_ahead).
  std::uint64_t tasks_run_ahead = 0;

  std::uint64_t total_copies() const { return h2d_copies + d2h_copies + d2d_copies; }
  std::uint64_t total_bytes() const { return h2d_bytes + d2h_bytes + d2d_bytes; }
};

class Runtime;
namespace runtime {
struct RuntimeAccess;  // internal: lets tests build a runtime with emulated devices
}

/// Host access to data granted by Runtime::acquire: the user's memory holds the latest contents
/// while this object lives. Tasks submitted later that use the data wait until it is released.
class HostAccess {
 public:
  HostAccess() = default;
  HostAccess(HostAccess&& other) noexcept;
  HostAccess& operator=(HostAccess&& other) noexcept;
  HostAccess(const HostAccess&) = delete;
  HostAccess& operator=(const HostAccess&) = delete;
  ~HostAccess();

  void* data() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  /// Lets waiting tasks run; done by the destructor too.
  void release();

 private:
  friend class Runtime;
  Runtime* runtime_ = nullptr;
  void* ticket_ = nullptr;
  void* ptr_ = nullptr;
};

class Runtime {
 public:
  /// Starts the workers. Throws UsageError for unknown devices, schedulers or a bad option.
  explicit Runtime(RuntimeOptions options = {});
  /// Waits for the tasks, writes data back to the user's memory (errors are dropped: call wait_all
  /// to see them) and stops the workers.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// Registers `count` elements of `elem_size` bytes at `ptr`.
  Data register_bytes(void* ptr, std::size_t elem_size, std::size_t count, std::string name = {});
  /// Registers a column-major matrix: element (r, c) at ptr[r + c * ld]; throws UsageError when
  /// ld < rows.
  Data register_matrix_bytes(void* ptr, std::size_t elem_size, std::size_t rows, std::size_t cols,
                             std::size_t ld, std::string name = {});
  template <typename T>
  Data register_vector(T* ptr, std::size_t count, std::string name = {}) {
    return register_bytes(ptr, sizeof(T), count, std::move(name));
  }
  template <typename T>
  Data register_matrix(T* ptr, std::size_t rows, std::size_t cols, std::size_t ld,
                       std::string name = {}) {
    return register_matrix_bytes(ptr, sizeof(T), rows, cols, ld, std::move(name));
  }

  /// Registers `count` elements of `elem_size` bytes that live in the memory of `device` (one of
  /// this runtime's devices, by id: "cuda:0") at `device_ptr`: that memory is the data's home.
  /// Tasks on that device use it in place (no copy); tasks elsewhere get copies as usual (device
  /// -> host -> other device, or a peer copy), a host copy being allocated only when something
  /// off the device needs one (freed at unregister). The block is the user's: never evicted,
  /// never freed, and not counted against device_memory_limit. wait_all() and unregister() leave
  /// the latest contents at `device_ptr`; acquire() gives a host copy (HostAccess::data()), and
  /// Data::host() is null. Throws UsageError for a device not in this runtime, a device that
  /// cannot take outside memory (OpenCL: its buffers are cl_mem, not pointers; simulated
  /// devices), a pointer that is not that device's memory (CUDA: cudaPointerGetAttributes), or
  /// coherence 'naive'.
  ///
  ///   double* x = nullptr;
  ///   cudaMalloc(&x, n * sizeof(double));
  ///   conveyor::Data d = rt.register_device_vector("cuda:0", x, n, "x");
  Data register_device_bytes(std::string_view device, void* device_ptr, std::size_t elem_size,
                             std::size_t count, std::string name = {});
  /// A column-major matrix in device memory, as register_device_bytes. With ld == rows the
  /// memory is used in place. With ld > rows (a tile of a larger device matrix) the region is
  /// strided, and device replicas are contiguous columns: the runtime then allocates the data a
  /// contiguous block on its home device (a real allocation, counted in neither
  /// device_memory_limit nor RuntimeStats, never evicted), fills it from the region with a
  /// device-to-device copy now, copies it back into the region wherever a contiguous home is
  /// brought up to date (wait_all, unregister, the runtime's end; only when a write changed it
  /// since), and frees it at unregister. Tasks on the home device use that block; the region is
  /// the user's again after unregister. A device that takes no outside memory cannot copy either
  /// (UsageError). partition() refuses the matrix: register each tile's device memory separately,
  /// with the matrix's ld.
  Data register_device_matrix_bytes(std::string_view device, void* device_ptr,
                                    std::size_t elem_size, std::size_t rows, std::size_t cols,
                                    std::size_t ld, std::string name = {});
  template <typename T>
  Data register_device_vector(std::string_view device, T* device_ptr, std::size_t count,
                              std::string name = {}) {
    return register_device_bytes(device, device_ptr, sizeof(T), count, std::move(name));
  }
  template <typename T>
  Data register_device_matrix(std::string_view device, T* device_ptr, std::size_t rows,
                              std::size_t cols, std::size_t ld, std::string name = {}) {
    return register_device_matrix_bytes(device, device_ptr, sizeof(T), rows, cols, ld,
                                        std::move(name));
  }

  /// Page-locks host memory [ptr, ptr + bytes) for the devices that copy faster from pinned memory
  /// (CUDA: cudaHostRegister; copies from pageable memory run at a fraction of the link), until
  /// unpin_host or the end of the runtime; returns whether a device did. Register data inside it
  /// as usual. Pin a whole allocation once, before registering views of it: CUDA refuses
  /// overlapping ranges, and a copy that spans pinned and unpinned pages fails. Costs about 0.1 s
  /// per GiB.
  ///
  ///   std::vector<double> a(n * n);
  ///   rt.pin_host(a.data(), a.size() * sizeof(double));   // `a` must outlive the runtime or the
  ///                                                        // unpin_host
  bool pin_host(void* ptr, std::size_t bytes);
  /// Undoes pin_host(ptr, ...); throws UsageError when `ptr` was not pinned by this runtime.
  void unpin_host(void* ptr);

  /// Splits a registered matrix into tiles of tile_rows x tile_cols without copying (each tile is a
  /// view of the user's memory with the matrix's ld). Waits for tasks using the matrix and brings
  /// its latest contents home first. The matrix cannot be used in tasks until unpartition. Throws
  /// UsageError when the tile sizes do not divide the matrix.
  TileGrid partition(const Data& matrix, std::size_t tile_rows, std::size_t tile_cols);
  /// Unregisters the tiles (their latest contents land in the matrix) and makes the matrix usable.
  void unpartition(TileGrid& grid);

  /// Waits for the tasks that use `data`, copies its latest contents into the user's memory (the
  /// device memory for data whose home is a device), frees its other replicas (device ones into
  /// the allocation cache) and invalidates every handle to it.
  void unregister(Data& data);
  /// Gives up the contents of `data`: waits for the tasks submitted so far that use it, then drops
  /// its device replicas without copying anything home, so that neither wait_all nor unregister
  /// moves it (as StarPU's starpu_data_invalidate). The user's memory keeps whatever it held last,
  /// maybe an older version; a later task must write it whole (Access::Write) before anything
  /// reads it. For scratch data such as an iteration's second buffer or halo strips. Data whose
  /// home is a device keeps its home as it is (only the wait).
  ///
  ///   rt.submit(sweep, {{a, Access::Read}, {b, Access::Write}});  // ... b is scratch from here
  ///   rt.discard(b);
  ///   rt.wait_all();                                               // copies a home, not b
  void discard(const Data& data);

  /// Submits a task. It runs after the earlier tasks it conflicts with (RAW, WAR, WAW on the same
  /// data); higher `priority` first among ready tasks. `args` (at most 64 bytes) are copied and
  /// given to the implementation (TaskContext::args). Throws UsageError for unregistered or
  /// partitioned data, data given twice, or a codelet without an implementation for any worker.
  TaskId submit(const Codelet& codelet, std::span<const DataAccess> accesses, int priority = 0,
                std::string_view name = {}, std::span<const std::byte> args = {});
  TaskId submit(const Codelet& codelet, std::initializer_list<DataAccess> accesses,
                int priority = 0, std::string_view name = {},
                std::span<const std::byte> args = {}) {
    return submit(codelet, std::span<const DataAccess>(accesses.begin(), accesses.size()), priority,
                  name, args);
  }

  /// Waits until every submitted task has finished and writes back what is valid only on a device
  /// (or, for data whose home is a device, only elsewhere than that device).
  /// Rethrows the first task failure as Error naming the task, the codelet and the worker (tasks
  /// depending on a failed one are not run and are counted in the message).
  void wait_all();

  /// Waits until the task `id` (what submit returned) has finished, and rethrows its failure as
  /// Error with the message wait_all gives for it ("task 'x' (codelet 'c', #id) failed on ...");
  /// a task not run because one it depends on failed throws Error saying so. A task finished long
  /// ago (its Task object recycled) returns at once, as does a failed one after wait_all reported
  /// it (it throws again). Unlike wait_all it writes nothing back: acquire() the data to read it.
  /// Throws UsageError for an id this runtime did not issue. A task that needs data held by an
  /// open HostAccess finishes only after its release.
  void wait(TaskId id);
  /// wait(id) for `timeout` at most: false when the task has not finished by then.
  bool wait_for(TaskId id, std::chrono::duration<double> timeout);
  /// Whether the task `id` has finished (run, failed or cancelled), without waiting or throwing
  /// for its failure.
  bool finished(TaskId id) const;

  /// Waits for the tasks that `mode` conflicts with and makes the user's memory hold the latest
  /// contents (Read) or become the only valid copy (Write, ReadWrite) while the access lives.
  HostAccess acquire(const Data& data, Access mode);

  RuntimeStats stats() const;
  void reset_stats();
  /// Seconds since the runtime started; on a simulated platform, virtual seconds (what the
  /// modelled machine would have taken).
  double seconds() const;

  /// Names of the workers: "cpu worker 0", ..., "opencl:0 worker".
  std::vector<std::string> workers() const;
  const RuntimeOptions& options() const;

  /// Writes the Chrome trace-event JSON (chrome://tracing, Perfetto, `conveyor plot`): one track
  /// per CPU worker, per device and per link. Throws UsageError unless options.trace was set.
  void write_trace(const std::string& path) const;

  class Impl;

 private:
  friend class HostAccess;
  friend struct runtime::RuntimeAccess;
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace conveyor
