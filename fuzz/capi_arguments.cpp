// Feeds: the C interface (include/conveyor/conveyor.h, src/capi/) with fuzzed arguments: a runtime
// made from fuzzed options (device list, scheduler, coherence, copy mode, offload list, counts),
// then a fuzzed sequence of calls, each with NULL or real handles, fuzzed strings, sizes, offsets,
// counts, directions, map indices and value sizes, and pointers that are NULL, inside a buffer of
// the harness, or arbitrary addresses (the runtime has no device, so nothing copies from them; it
// only compares them). Handles are NULL or real: the header promises errors for NULL, and nothing
// can check a dangling pointer.
// A bug: a crash, sanitizer report (e.g. pointer arithmetic that overflows), hang or uncaught
// exception (the header says none crosses it); a status outside conveyor_status; a failure whose
// conveyor_last_error() does not name the function; a NULL runtime, kernel or stats pointer, a
// zero size or a negative count not refused as an invalid argument; a creator returning NULL with
// no error; copies counted on a runtime without devices.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "conveyor/conveyor.h"
#include "fuzz_check.hpp"

namespace {

using conveyor::fuzz::check;

alignas(64) unsigned char g_buffer[4096];  // what "a real pointer" points into
std::filesystem::path g_cache;             // XDG_CACHE_HOME of the model schedulers

int host_ok(void* const*, int) { return 0; }
int host_fails(void* const*, int) { return 3; }
int cuda_launch(void*, void* const*, int) { return 0; }  // never called: no CUDA device

// Checks what every call promises: a known status, and on failure a message naming the call.
conveyor_status checked(conveyor_status status, const char* function) {
  check(status >= CONVEYOR_OK && status <= CONVEYOR_ERROR_INTERNAL, "a status out of range");
  if (status != CONVEYOR_OK) {
    const char* message = conveyor_last_error();
    check(message != nullptr && std::strncmp(message, function, std::strlen(function)) == 0,
          "a failure whose last error does not name the call");
  }
  return status;
}

void refused_as_invalid(conveyor_status status, const char* what) {
  check(status == CONVEYOR_ERROR_INVALID_ARGUMENT, what);
}

class Calls {
 public:
  explicit Calls(FuzzedDataProvider& in) : in_(in) {}

  std::string text() { return in_.ConsumeRandomLengthString(24); }
  // NULL, a pointer into the harness's buffer, or an arbitrary address.
  void* pointer() {
    switch (in_.ConsumeIntegralInRange(0, 3)) {
      case 0:
        return nullptr;
      case 1:
        return reinterpret_cast<void*>(in_.ConsumeIntegral<std::uintptr_t>());
      default:
        return g_buffer + in_.ConsumeIntegralInRange<std::size_t>(0, sizeof g_buffer - 1);
    }
  }
  // Mostly small sizes inside the buffer, sometimes any value (zero, huge, wrapping).
  std::size_t size() {
    return in_.ConsumeBool() ? in_.ConsumeIntegralInRange<std::size_t>(0, 512)
                             : in_.ConsumeIntegral<std::size_t>();
  }
  int count(int most) { return in_.ConsumeIntegralInRange(-2, most); }

  conveyor_runtime* runtime(conveyor_runtime* real) { return in_.ConsumeBool() ? real : nullptr; }
  conveyor_kernel* kernel() {
    if (kernels_.empty() || in_.ConsumeBool()) return nullptr;
    return kernels_[in_.ConsumeIntegralInRange<std::size_t>(0, kernels_.size() - 1)];
  }

  void one(conveyor_runtime* real) {
    switch (in_.ConsumeIntegralInRange(0, 10)) {
      case 0: {
        conveyor_runtime* rt = runtime(real);
        const std::size_t bytes = size();
        conveyor_status s = checked(conveyor_register(rt, pointer(), bytes), "conveyor_register");
        if (!rt) refused_as_invalid(s, "conveyor_register took a NULL runtime");
        if (bytes == 0) check(s != CONVEYOR_OK, "conveyor_register took 0 bytes");
        break;
      }
      case 1: {
        conveyor_runtime* rt = runtime(real);
        conveyor_status s = checked(conveyor_unregister(rt, pointer()), "conveyor_unregister");
        if (!rt) refused_as_invalid(s, "conveyor_unregister took a NULL runtime");
        break;
      }
      case 2:
        create_kernel(runtime(real));
        break;
      case 3: {
        conveyor_runtime* rt = runtime(real);
        const std::string name = text();
        conveyor_kernel* k = conveyor_kernel_get(rt, in_.ConsumeBool() ? name.c_str() : nullptr);
        if (!k) checked(CONVEYOR_ERROR_UNKNOWN_KERNEL, "conveyor_kernel_get");
        if (!rt) check(k == nullptr, "conveyor_kernel_get took a NULL runtime");
        break;
      }
      case 4: {
        conveyor_kernel* k = kernel();
        std::size_t global[3], local[3];
        for (auto& g : global) g = size();
        for (auto& l : local) l = size();
        conveyor_status s =
            checked(conveyor_kernel_set_work_size(k, in_.ConsumeIntegralInRange(0u, 5u),
                                                  in_.ConsumeBool() ? global : nullptr,
                                                  in_.ConsumeBool() ? local : nullptr),
                    "conveyor_kernel_set_work_size");
        if (!k) refused_as_invalid(s, "conveyor_kernel_set_work_size took a NULL kernel");
        break;
      }
      case 5:
        host_tasklet(runtime(real));
        break;
      case 6:
        target_tasklet(runtime(real));
        break;
      case 7: {
        conveyor_runtime* rt = runtime(real);
        conveyor_status s = checked(conveyor_wait(rt), "conveyor_wait");
        if (!rt) refused_as_invalid(s, "conveyor_wait took a NULL runtime");
        break;
      }
      case 8: {
        conveyor_runtime* rt = runtime(real);
        conveyor_stats stats{};
        const bool give = in_.ConsumeBool();
        conveyor_status s =
            checked(conveyor_get_stats(rt, give ? &stats : nullptr), "conveyor_get_stats");
        if (!rt || !give) refused_as_invalid(s, "conveyor_get_stats took a NULL pointer");
        if (s == CONVEYOR_OK)
          check(stats.h2d_copies == 0 && stats.d2h_copies == 0 && stats.d2d_copies == 0,
                "copies counted on a runtime without devices");
        break;
      }
      case 9: {
        conveyor_runtime* rt = runtime(real);
        conveyor_status s = checked(conveyor_reset_stats(rt), "conveyor_reset_stats");
        if (!rt) refused_as_invalid(s, "conveyor_reset_stats took a NULL runtime");
        break;
      }
      default:
        check(conveyor_status_string(static_cast<conveyor_status>(in_.ConsumeIntegral<int>())) !=
                  nullptr,
              "conveyor_status_string gave NULL");
        check(conveyor_last_error() != nullptr && conveyor_version() != nullptr &&
                  conveyor_device_list() != nullptr,
              "a string getter gave NULL");
        conveyor_options_init(nullptr);
        break;
    }
  }

 private:
  void create_kernel(conveyor_runtime* rt) {
    conveyor_kernel_desc desc;
    std::memset(&desc, 0, sizeof desc);
    const std::string name = text(), source = text();
    if (in_.ConsumeBool()) desc.name = name.c_str();
    if (in_.ConsumeBool()) desc.host = in_.ConsumeBool() ? host_ok : host_fails;
    if (in_.ConsumeBool()) desc.cuda_launch = cuda_launch;
    if (in_.ConsumeBool()) desc.opencl_source = source.c_str();
    if (in_.ConsumeBool()) {
      desc.opencl_binary = g_buffer;
      desc.opencl_binary_size = in_.ConsumeIntegralInRange<std::size_t>(0, sizeof g_buffer);
    }
    desc.work_dim = in_.ConsumeIntegralInRange(0u, 5u);
    for (auto& g : desc.global_size) g = size();
    for (auto& l : desc.local_size) l = size();
    const bool give = in_.ConsumeBool();
    conveyor_kernel* k = conveyor_kernel_create(rt, give ? &desc : nullptr);
    if (!k) checked(CONVEYOR_ERROR_INVALID_ARGUMENT, "conveyor_kernel_create");
    if (!rt || !give) check(k == nullptr, "conveyor_kernel_create took a NULL pointer");
    if (k) kernels_.push_back(k);
  }

  // Dependency lists of `n` addresses (n may be negative, or positive with no list).
  std::vector<void*> addresses(int n) {
    std::vector<void*> list(static_cast<std::size_t>(n > 0 ? n : 0));
    for (auto& p : list) p = pointer();
    return list;
  }

  void host_tasklet(conveyor_runtime* rt) {
    const int nargs = count(10), n_in = count(4), n_out = count(4);
    std::vector<void*> args = addresses(nargs), in = addresses(n_in), out = addresses(n_out);
    const bool lists = in_.ConsumeBool();  // false: NULL lists whatever the counts say
    conveyor_status s = checked(
        conveyor_tasklet_create(rt, in_.ConsumeBool() ? host_ok : host_fails, nargs,
                                lists ? args.data() : nullptr, n_in, lists ? in.data() : nullptr,
                                n_out, lists ? out.data() : nullptr),
        "conveyor_tasklet_create");
    if (!rt || nargs < 0 || n_in < 0 || n_out < 0)
      refused_as_invalid(s, "conveyor_tasklet_create took a NULL runtime or a negative count");
  }

  void target_tasklet(conveyor_runtime* rt) {
    conveyor_kernel* k = kernel();
    const int n_maps = count(4), nargs = count(6), n_in = count(3), n_out = count(3);
    std::vector<conveyor_map_desc> maps(static_cast<std::size_t>(n_maps > 0 ? n_maps : 0));
    for (auto& m : maps) {
      void* base = pointer();
      const std::size_t offset = in_.ConsumeBool() ? in_.ConsumeIntegralInRange<std::size_t>(0, 64)
                                                   : in_.ConsumeIntegral<std::size_t>();
      m = conveyor_make_map_desc(base, offset, size(), in_.ConsumeIntegralInRange(-1, 4));
    }
    std::vector<conveyor_arg> args(static_cast<std::size_t>(nargs > 0 ? nargs : 0));
    for (auto& a : args)
      a = in_.ConsumeBool() ? conveyor_arg_map(in_.ConsumeIntegralInRange(-3, 5))
                            : conveyor_arg_value(in_.ConsumeBool() ? g_buffer : nullptr,
                                                 in_.ConsumeIntegralInRange<std::size_t>(0, 300));
    std::vector<void*> in = addresses(n_in), out = addresses(n_out);
    const bool lists = in_.ConsumeBool();
    conveyor_status s = checked(
        conveyor_tasklet_target_create(
            rt, k, nargs, lists ? args.data() : nullptr, n_in, lists ? in.data() : nullptr, n_out,
            lists ? out.data() : nullptr, n_maps, lists ? maps.data() : nullptr, in_.ConsumeBool()),
        "conveyor_tasklet_target_create");
    if (!rt || !k || nargs < 0 || n_in < 0 || n_out < 0 || n_maps < 0)
      refused_as_invalid(s, "conveyor_tasklet_target_create took a NULL handle or negative count");
  }

  FuzzedDataProvider& in_;
  std::vector<conveyor_kernel*> kernels_;  // owned by the runtime
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The model schedulers read and write perfmodels.json under XDG_CACHE_HOME: keep that in a
  // folder of this process (under TMPDIR, which scripts/fuzz.sh points at its own work folder).
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/conveyor-fuzz-capi.XXXXXX";
  check(mkdtemp(pattern.data()) != nullptr, "cannot make a cache folder");
  g_cache = pattern;
  setenv("XDG_CACHE_HOME", pattern.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(g_cache, ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  static const char* const kSchedulers[] = {"auto",        "eager",   "model",   "model-ready",
                                            "round-robin", "offload", "locality"};
  const std::string devices = in.ConsumeRandomLengthString(24);
  const std::string offload = in.ConsumeRandomLengthString(16);
  const std::string scheduler =
      in.ConsumeBool() ? in.ConsumeRandomLengthString(16) : in.PickValueInArray(kSchedulers);
  const std::string coherence = in.ConsumeRandomLengthString(12);
  const std::string device_copy = in.ConsumeRandomLengthString(12);
  conveyor_options options;
  conveyor_options_init(&options);
  options.pin = 0;
  options.cpus = in.ConsumeIntegralInRange(-3, 2);  // a few workers: thousands of runtimes a run
  options.device_tasks_in_flight = in.ConsumeIntegralInRange(-1, 8);
  options.device_memory_limit = in.ConsumeIntegral<std::uint64_t>();
  const std::uint8_t strings = in.ConsumeIntegral<std::uint8_t>();  // which strings are given
  if (strings & 1) options.devices = devices.c_str();
  if (strings & 2) options.offload = offload.c_str();
  if (strings & 4) options.scheduler = scheduler.c_str();
  if (strings & 8) options.coherence = coherence.c_str();
  if (strings & 16) options.device_copy = device_copy.c_str();
  conveyor_runtime* rt =
      conveyor_runtime_create(in.ConsumeIntegralInRange(0, 7) ? &options : nullptr);
  if (!rt) checked(CONVEYOR_ERROR_INVALID_ARGUMENT, "conveyor_runtime_create");
  Calls calls(in);
  for (int i = 0; i < 24 && in.remaining_bytes() > 0; ++i) calls.one(rt);
  if (rt) {
    checked(conveyor_wait(rt), "conveyor_wait");
    conveyor_runtime_destroy(rt);
  }
  conveyor_runtime_destroy(nullptr);  // NULL is ignored
  return 0;
}
