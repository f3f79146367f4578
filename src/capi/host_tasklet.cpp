#include "capi/host_tasklet.hpp"

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "capi/access_list.hpp"
#include "capi/handles.hpp"
#include "capi/status.hpp"

namespace conveyor::capi {
namespace {

// The runtime copies at most 64 bytes of arguments per task: the function, the count and up to
// six pointers fit; more arguments go through a pointer to a copy the codelet frees after use.
constexpr int kInlineArgs = 6;
struct HostArgs {
  conveyor_host_fn fn;
  int nargs;
  int spilled;  // 1: args[0] is an array of nargs pointers kept in the runtime's payload pool
  void* args[kInlineArgs];
};
static_assert(sizeof(HostArgs) <= 64, "the runtime copies at most 64 bytes of task arguments");

thread_local AccessList t_host_accesses;

}  // namespace

Codelet make_host_codelet() {
  Codelet codelet("host");
  codelet.cpu([](const TaskContext& task) {
    HostArgs packed;
    std::memcpy(&packed, task.raw_args().data(), sizeof packed);
    void* const* args = packed.args;
    if (packed.spilled) args = static_cast<void* const*>(packed.args[0]);
    if (int rc = packed.fn(args, packed.nargs); rc != 0)
      throw Error("host function returned " + std::to_string(rc));
  });
  return codelet;
}

}  // namespace conveyor::capi

using conveyor::capi::guard;
using conveyor::capi::require;

extern "C" conveyor_status conveyor_tasklet_create(conveyor_runtime* runtime, conveyor_host_fn fn,
                                                   int nargs, void* const* args, int n_in,
                                                   void* const* in_deps, int n_out,
                                                   void* const* out_deps) {
  using namespace conveyor::capi;
  return guard("conveyor_tasklet_create", CONVEYOR_ERROR_INTERNAL, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(fn != nullptr, "fn is NULL");
    require(nargs >= 0 && (nargs == 0 || args != nullptr), "nargs > 0 but args is NULL");
    require(n_in >= 0 && (n_in == 0 || in_deps != nullptr), "n_in > 0 but in_deps is NULL");
    require(n_out >= 0 && (n_out == 0 || out_deps != nullptr), "n_out > 0 but out_deps is NULL");
    AccessList& accesses = t_host_accesses;
    AccessListScope scope(accesses);
    for (int i = 0; i < n_in; ++i) accesses.add_dependency(runtime->ranges, in_deps[i], false);
    for (int i = 0; i < n_out; ++i) accesses.add_dependency(runtime->ranges, out_deps[i], true);

    HostArgs packed{fn, nargs, 0, {}};
    std::unique_ptr<std::vector<void*>> spill;
    if (nargs <= kInlineArgs) {
      if (nargs > 0)
        std::memcpy(packed.args, args, sizeof(void*) * static_cast<std::size_t>(nargs));
    } else {
      spill = std::make_unique<std::vector<void*>>(args, args + nargs);
      packed.spilled = 1;
      packed.args[0] = spill->data();
    }
    runtime->runtime.submit(runtime->host_codelet, accesses.accesses(), 0, {},
                            std::as_bytes(std::span(&packed, 1)));
    // Kept after the submit succeeded (freed by a later wait, see conveyor_wait).
    if (spill) runtime->payloads.keep(std::move(spill));
  });
}
