// Target tasklets (conveyor_tasklet_target_create): maps and dependencies become the access
// list, the arguments a TargetPayload kept until a wait, and async = 0 a wait for the ranges the
// tasklet writes.
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "capi/access_list.hpp"
#include "capi/handles.hpp"
#include "capi/status.hpp"

namespace conveyor::capi {
namespace {

constexpr std::size_t kMaxValueBytes = 256;
thread_local AccessList t_target_accesses;

std::unique_ptr<TargetPayload> make_payload(conveyor_kernel& kernel, int nargs,
                                            const conveyor_arg* args,
                                            const std::vector<int>& map_buffers) {
  auto payload = std::make_unique<TargetPayload>();
  std::size_t value_bytes = 0;
  constexpr std::size_t kAlign = alignof(std::max_align_t);
  for (int i = 0; i < nargs; ++i) {
    const conveyor_arg& a = args[i];
    auto which = [i] { return "arg " + std::to_string(i); };
    TargetPayload::Arg arg;
    if (a.map >= 0) {
      require(a.map < static_cast<int>(map_buffers.size()), [&] {
        return which() + ": map index " + std::to_string(a.map) + " but the tasklet has " +
               std::to_string(map_buffers.size()) + " maps";
      });
      arg.buffer = map_buffers[static_cast<std::size_t>(a.map)];
    } else {
      require(a.map == -1,
              [&] { return which() + ": map index " + std::to_string(a.map) + " is negative"; });
      require(a.value != nullptr && a.size > 0,
              [&] { return which() + ": a value needs a pointer and a size"; });
      require(a.size <= kMaxValueBytes, [&] { return which() + ": values are at most 256 bytes"; });
      arg.value_offset = value_bytes;
      arg.value_size = a.size;
      value_bytes += (a.size + kAlign - 1) / kAlign * kAlign;
    }
    payload->args.push_back(arg);
  }
  payload->values.resize(value_bytes / kAlign);
  for (int i = 0; i < nargs; ++i)
    if (args[i].map == -1)
      std::memcpy(payload->value(payload->args[static_cast<std::size_t>(i)].value_offset),
                  args[i].value, args[i].size);
  std::lock_guard lock(kernel.mutex);
  payload->work_dim = kernel.work_dim;
  payload->global_size = kernel.global_size;
  payload->local_size = kernel.local_size;
  return payload;
}

// async = 0: the tasklet has finished when the ranges it writes can be read on the host; a
// tasklet that writes nothing is waited for with everything else.
void wait_for(conveyor_runtime& runtime, AccessList& accesses) {
  bool waited = false;
  const auto& list = accesses.accesses();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!accesses.writes(i)) continue;
    runtime.runtime.acquire(list[i].data, Access::Read).release();
    waited = true;
  }
  if (!waited) runtime.runtime.wait_all();
}

}  // namespace
}  // namespace conveyor::capi

extern "C" conveyor_status conveyor_tasklet_target_create(
    conveyor_runtime* runtime, conveyor_kernel* kernel, int nargs, const conveyor_arg* args,
    int n_in, void* const* in_deps, int n_out, void* const* out_deps, int n_maps,
    const conveyor_map_desc* maps, int async) {
  using namespace conveyor::capi;
  return guard("conveyor_tasklet_target_create", CONVEYOR_ERROR_TASK_FAILED, [&] {
    require(runtime != nullptr, "runtime is NULL");
    require(kernel != nullptr, "kernel is NULL");
    require(nargs >= 0 && (nargs == 0 || args != nullptr), "nargs > 0 but args is NULL");
    require(n_in >= 0 && (n_in == 0 || in_deps != nullptr), "n_in > 0 but in_deps is NULL");
    require(n_out >= 0 && (n_out == 0 || out_deps != nullptr), "n_out > 0 but out_deps is NULL");
    require(n_maps >= 0 && (n_maps == 0 || maps != nullptr), "n_maps > 0 but maps is NULL");
    AccessList& accesses = t_target_accesses;
    AccessListScope scope(accesses);

    std::vector<int> map_buffers(static_cast<std::size_t>(n_maps));
    for (int m = 0; m < n_maps; ++m)
      map_buffers[static_cast<std::size_t>(m)] =
          accesses.add_map(runtime->ranges, runtime->runtime, maps[m], m);
    for (int i = 0; i < n_in; ++i) accesses.add_dependency(runtime->ranges, in_deps[i], false);
    for (int i = 0; i < n_out; ++i) accesses.add_dependency(runtime->ranges, out_deps[i], true);
    std::unique_ptr<TargetPayload> payload = make_payload(*kernel, nargs, args, map_buffers);

    const TargetPayload* address = payload.get();
    runtime->runtime.submit(kernel->codelet, accesses.accesses(), 0, {},
                            std::as_bytes(std::span(&address, 1)));
    runtime->payloads.keep(std::move(payload));
    if (!async) wait_for(*runtime, accesses);
  });
}
