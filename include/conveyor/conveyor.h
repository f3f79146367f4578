/* Conveyor's C interface (C99; also compiles as C++ and includes no C++ header).
 *
 * It follows libompctarget, the runtime of seed 003: host tasklets and target (device) tasklets
 * with explicit in/out dependency lists and map descriptors, kernels named (OpenCL source or a
 * precompiled binary plus a kernel name) or given as CUDA launch functions, an `async` flag, and
 * a wait. Underneath is the same runtime as the C++ API (conveyor/runtime.hpp): the mapped host
 * ranges become registered Data, dependencies come from the lists in submission order, and the
 * MSI coherence of the runtime decides which copies are needed.
 *
 *   conveyor_options o;
 *   conveyor_options_init(&o);
 *   o.devices = "opencl:0";
 *   conveyor_runtime* rt = conveyor_runtime_create(&o);
 *   if (!rt) { fprintf(stderr, "%s\n", conveyor_last_error()); return 1; }
 *   ...
 *   conveyor_runtime_destroy(rt);
 *
 * Errors: every call returns a conveyor_status (or NULL for the creators) and never aborts; the
 * message of the last failure in the calling thread is conveyor_last_error(). No C++ exception
 * crosses this interface.
 *
 * Thread safety: the functions may be called from several threads at once, also on one runtime
 * (registration, submission and the range table are locked). Tasklets submitted by different
 * threads are ordered by the order in which the calls happen. conveyor_runtime_destroy must not
 * run concurrently with any other call on the same runtime. conveyor_last_error() is per thread.
 * Host functions and CUDA launch functions run on the runtime's worker threads.
 *
 * Units: sizes and offsets in bytes. ABI: compatible within a minor version (0.2.x); see
 * docs/api-c.md.
 */
#ifndef CONVEYOR_CONVEYOR_H
#define CONVEYOR_CONVEYOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status and errors ------------------------------------------------------------------ */

typedef enum conveyor_status {
  CONVEYOR_OK = 0,
  CONVEYOR_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad count, size or direction */
  CONVEYOR_ERROR_USAGE = 2,            /* refused by the runtime: unknown device, scheduler... */
  CONVEYOR_ERROR_OVERLAP = 3,          /* a range overlaps a different registered range */
  CONVEYOR_ERROR_UNKNOWN_ADDRESS = 4,  /* a dependency lies in no registered or mapped range */
  CONVEYOR_ERROR_UNKNOWN_KERNEL = 5,   /* no kernel of that name in this runtime */
  CONVEYOR_ERROR_TASK_FAILED = 6,      /* a tasklet failed (reported by wait) */
  CONVEYOR_ERROR_DEVICE = 7,           /* a device API call failed */
  CONVEYOR_ERROR_OUT_OF_MEMORY = 8,
  CONVEYOR_ERROR_INTERNAL = 9
} conveyor_status;

/* The message of the last failed call in this thread ("" when none failed yet). Valid until the
 * next failing call in this thread. */
const char* conveyor_last_error(void);
/* "ok", "invalid argument", ... */
const char* conveyor_status_string(conveyor_status status);
/* "0.2.0": the version of the library linked in. */
const char* conveyor_version(void);
/* The devices present, comma-separated: "cpu,opencl:0,cuda:0". */
const char* conveyor_device_list(void);

/* ---- runtime ---------------------------------------------------------------------------- */

typedef struct conveyor_runtime conveyor_runtime;

/* Options of a runtime. Fill with conveyor_options_init, then change what you need. Strings are
 * copied by conveyor_runtime_create. */
typedef struct conveyor_options {
  /* Devices besides the CPUs, comma-separated: "opencl:0", "cuda:0,cuda:1", "all"; NULL or ""
   * for CPUs only (the OpenMP device(n) clause). */
  const char* devices;
  /* CPU workers (one thread each): -1 = one per core (default), 0 = none. */
  int cpus;
  /* Pin CPU workers to cores: 1 (default) or 0. */
  int pin;
  /* "model", "model-ready", "eager", "round-robin", "offload", "locality" (docs/runtime.md); NULL
   * or "auto" (default): "offload" when devices and offload are given, "model" when devices are,
   * else "eager". */
  const char* scheduler;
  /* Kernel names the "offload" scheduler places on devices, comma-separated: "gemm". */
  const char* offload;
  /* "coherent" (MSI, default) or "naive" (copy in and out around every device tasklet). */
  const char* coherence;
  /* "host-staged" (default), "peer-copy" or "peer-direct" (docs/runtime.md). */
  const char* device_copy;
  /* Tasklets each device keeps enqueued ahead; -1 (default): 8 with one device, 4 with more. */
  int device_tasks_in_flight;
  /* Bytes each device may allocate; 0 = its memory. */
  uint64_t device_memory_limit;
} conveyor_options;

/* The defaults: all cores, pinned, no devices, the "auto" scheduler, coherent, host-staged. */
void conveyor_options_init(conveyor_options* options);

/* Starts a runtime; NULL options = defaults. Returns NULL on failure (conveyor_last_error says
 * why: an unknown device or scheduler, a bad option). */
conveyor_runtime* conveyor_runtime_create(const conveyor_options* options);
/* Waits for every tasklet, writes device-only data back to host memory, frees the kernels and
 * stops the workers. A failure of a tasklet that was not seen by conveyor_wait is dropped. NULL
 * is ignored. */
void conveyor_runtime_destroy(conveyor_runtime* runtime);

/* Waits until every tasklet submitted so far has finished and the host memory of every mapped
 * range holds the latest values (the OpenMP taskwait at the end of the seed's program). Returns
 * CONVEYOR_ERROR_TASK_FAILED naming the first failed tasklet (those depending on it were not run).
 */
conveyor_status conveyor_wait(conveyor_runtime* runtime);

/* ---- ranges (the seed's host-to-device object table) ------------------------------------- */

/* The copy direction of a map descriptor (the OpenMP map types; 0 and 1 as in the seed). */
typedef enum conveyor_map_direction {
  CONVEYOR_MAP_TO = 0,     /* copied to the device before the tasklet: read there */
  CONVEYOR_MAP_FROM = 1,   /* produced by the tasklet: not copied in, latest on the device after */
  CONVEYOR_MAP_TOFROM = 2, /* read and updated by the tasklet */
  CONVEYOR_MAP_ALLOC = 3   /* device memory only: not copied in; what the tasklet leaves is kept
                              as the latest contents, like FROM (docs/api-c.md) */
} conveyor_map_direction;

/* One mapped host range: [host_ptr + offset, host_ptr + offset + size). */
typedef struct conveyor_map_desc {
  void* host_ptr;
  size_t offset;
  size_t size;
  int direction; /* a conveyor_map_direction */
} conveyor_map_desc;

/* Packs a map descriptor (the seed's make_map_desc); checked when a tasklet uses it. */
conveyor_map_desc conveyor_make_map_desc(void* host_ptr, size_t offset, size_t size, int direction);

/* Registers [ptr, ptr + size) so that dependencies can name it before any tasklet maps it (host
 * tasklets that only depend on it). Maps of exactly this range reuse the registration; a range
 * that overlaps it otherwise is refused with CONVEYOR_ERROR_OVERLAP. Registering the same range
 * again is a no-op. */
conveyor_status conveyor_register(conveyor_runtime* runtime, void* ptr, size_t size);
/* Waits for the tasklets using the range that starts at `ptr`, copies its latest contents into
 * host memory and forgets it (its device copies are freed); it may then be mapped differently. */
conveyor_status conveyor_unregister(conveyor_runtime* runtime, void* ptr);
/* Gives up the contents of the registered or mapped range that contains `ptr` (scratch): waits
 * for the tasklets submitted so far that use it, then drops its device copies without copying
 * them into host memory, so that neither a wait nor conveyor_unregister does. The host memory
 * keeps what it held last, maybe an older version: map it CONVEYOR_MAP_ALLOC or FROM (written
 * whole) before reading it again. */
conveyor_status conveyor_discard(conveyor_runtime* runtime, void* ptr);

/* ---- kernels ---------------------------------------------------------------------------- */

typedef struct conveyor_kernel conveyor_kernel;

/* A host function: `args` are the tasklet's arguments (for a target tasklet run on a CPU: the
 * host pointers of its maps and pointers to its values, see conveyor_arg). Returns 0 on success;
 * anything else fails the tasklet. */
typedef int (*conveyor_host_fn)(void* const* args, int nargs);
/* A CUDA launch: enqueues the kernel on `stream` (a cudaStream_t) and returns without waiting.
 * `args` as for conveyor_host_fn but with device pointers for the maps. Returns 0 on success
 * (e.g. cudaGetLastError() == cudaSuccess). */
typedef int (*conveyor_cuda_launch_fn)(void* stream, void* const* args, int nargs);

/* What a kernel is made of; unused fields stay zero/NULL (memset or `= {0}`). */
typedef struct conveyor_kernel_desc {
  /* The kernel's name: the seed's kernel name, the offload list's name and the trace's label. */
  const char* name;
  /* OpenCL: source text, or a precompiled program binary (FPGA flows), and the kernel name in
   * it (NULL = `name`) and build options. */
  const char* opencl_source;
  const unsigned char* opencl_binary;
  size_t opencl_binary_size;
  const char* opencl_kernel;
  const char* opencl_options;
  /* CUDA: the launch function. */
  conveyor_cuda_launch_fn cuda_launch;
  /* A CPU implementation, used when the scheduler places the tasklet on a CPU worker. */
  conveyor_host_fn host;
  /* OpenCL NDRange: dimensions (0 = 1) and global/local sizes (0 = 1 / left to the driver).
   * conveyor_kernel_set_work_size changes them later. */
  unsigned work_dim;
  size_t global_size[3];
  size_t local_size[3];
} conveyor_kernel_desc;

/* Creates a kernel owned by the runtime (freed by conveyor_runtime_destroy). It needs at least
 * one implementation; names are unique per runtime. NULL on failure. */
conveyor_kernel* conveyor_kernel_create(conveyor_runtime* runtime,
                                        const conveyor_kernel_desc* desc);
/* The kernel named `name` (the seed's ompc_target_get_kernel), or NULL with
 * CONVEYOR_ERROR_UNKNOWN_KERNEL. */
conveyor_kernel* conveyor_kernel_get(conveyor_runtime* runtime, const char* name);
/* Sets the OpenCL NDRange of the tasklets submitted from now on. */
conveyor_status conveyor_kernel_set_work_size(conveyor_kernel* kernel, unsigned work_dim,
                                              const size_t* global_size, const size_t* local_size);

/* ---- tasklets --------------------------------------------------------------------------- */

/* One argument of a target tasklet: a mapped buffer (its device pointer or cl_mem where the
 * tasklet runs) or a value copied at submission (at most 256 bytes). */
typedef struct conveyor_arg {
  int map;           /* index into the tasklet's map descriptors, or -1 for a value */
  const void* value; /* the value's bytes when map == -1 */
  size_t size;       /* the value's size in bytes */
} conveyor_arg;
conveyor_arg conveyor_arg_map(int map_index);
conveyor_arg conveyor_arg_value(const void* value, size_t size);

/* A host tasklet (the seed's tasklet_create): runs fn(args, nargs) on a CPU worker after the
 * earlier tasklets it depends on. `args` (nargs pointers) are copied; what they point to is not.
 * Each dependency address must lie in a range registered or mapped earlier: in_deps are read,
 * out_deps are written (the latest contents are brought to host memory first). */
conveyor_status conveyor_tasklet_create(conveyor_runtime* runtime, conveyor_host_fn fn, int nargs,
                                        void* const* args, int n_in, void* const* in_deps,
                                        int n_out, void* const* out_deps);

/* A target tasklet (the seed's tasklet_target_create): runs `kernel` where the scheduler places
 * it, with the map descriptors' ranges copied as their directions and the runtime's coherence
 * say. Ranges are registered on first use, keyed by (address, size); dependencies name addresses
 * inside mapped or registered ranges (a dependency's range is also moved to the device). async:
 * 1 returns at once (the seed's async, OpenMP nowait); 0 returns when the tasklet has finished
 * and the ranges it writes are in host memory. */
conveyor_status conveyor_tasklet_target_create(conveyor_runtime* runtime, conveyor_kernel* kernel,
                                               int nargs, const conveyor_arg* args, int n_in,
                                               void* const* in_deps, int n_out,
                                               void* const* out_deps, int n_maps,
                                               const conveyor_map_desc* maps, int async);

/* ---- statistics ------------------------------------------------------------------------- */

/* Copies and tasklets since the runtime started or the last reset (the seed's table 3). */
typedef struct conveyor_stats {
  uint64_t h2d_copies, h2d_bytes;
  uint64_t d2h_copies, d2h_bytes;
  uint64_t d2d_copies, d2d_bytes;
  uint64_t device_allocations;
  uint64_t tasks;
} conveyor_stats;
conveyor_status conveyor_get_stats(conveyor_runtime* runtime, conveyor_stats* stats);
conveyor_status conveyor_reset_stats(conveyor_runtime* runtime);

#ifdef __cplusplus
}
#endif

#endif /* CONVEYOR_CONVEYOR_H */
