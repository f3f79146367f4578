#pragma once
// What the C handles conveyor_runtime and conveyor_kernel are: thin owners around the C++ API
// (one implementation for both interfaces), plus the per-tasklet payloads the codelets read.
#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "capi/range_table.hpp"
#include "conveyor/codelet.hpp"
#include "conveyor/conveyor.h"
#include "conveyor/runtime.hpp"

namespace conveyor::capi {

/// How a target tasklet's arguments reach its implementation: per argument, the index of a
/// buffer in the TaskContext (a map) or the place of a value in `values`.
struct TargetPayload {
  struct Arg {
    int buffer = -1;  ///< TaskContext buffer index, or -1 for a value
    std::size_t value_offset = 0;
    std::size_t value_size = 0;
  };
  std::vector<Arg> args;
  std::vector<std::max_align_t> values;  ///< max_align_t: a value may be a double or a struct
  unsigned work_dim = 1;
  std::array<std::size_t, 3> global_size{1, 1, 1};
  std::array<std::size_t, 3> local_size{0, 0, 0};

  void* value(std::size_t offset) const {
    return const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(values.data())) +
           offset;
  }
  /// The argument pointers an implementation receives: buffer pointers (host, device) for the
  /// maps, pointers into `values` for the values.
  std::vector<void*> pointers(const TaskContext& task) const;
};

/// What a submitted tasklet reads besides its 64 argument bytes (a target tasklet's payload, a
/// host tasklet's long argument list) lives here until a wait has seen the tasklet finish: one
/// that is never run (its dependency failed) still has it freed, and none is freed early.
class PayloadPool {
 public:
  /// Called after the tasklet was submitted (a wait running meanwhile must not free it early).
  /// Never throws: the tasklet may already be running, so when memory runs out here the payload
  /// is leaked rather than freed under it.
  template <typename T>
  void keep(std::unique_ptr<T> payload) noexcept {
    try {
      std::lock_guard lock(mutex_);
      kept_.emplace_back(std::move(payload));
    } catch (...) {
      (void)payload.release();
    }
  }
  /// Hands over everything kept so far; the caller frees it once those tasklets have finished.
  std::vector<std::shared_ptr<const void>> take_all() {
    std::lock_guard lock(mutex_);
    return std::exchange(kept_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<const void>> kept_;  // type-erased owners
};

}  // namespace conveyor::capi

struct conveyor_kernel {
  explicit conveyor_kernel(std::string name) : codelet(std::move(name)) {}
  conveyor::Codelet codelet;
  conveyor_host_fn host = nullptr;
  conveyor_cuda_launch_fn cuda_launch = nullptr;
  std::mutex mutex;  // guards the work size, which may change while tasklets are submitted
  unsigned work_dim = 1;
  std::array<std::size_t, 3> global_size{1, 1, 1};
  std::array<std::size_t, 3> local_size{0, 0, 0};
};

struct conveyor_runtime {
  explicit conveyor_runtime(conveyor::RuntimeOptions options);
  ~conveyor_runtime();

  // Declared before `runtime` so that they outlive it: its destructor still runs tasklets that
  // use the kernels and the payloads.
  std::mutex kernels_mutex;
  std::map<std::string, std::unique_ptr<conveyor_kernel>, std::less<>> kernels;
  conveyor::capi::PayloadPool payloads;
  conveyor::Codelet host_codelet;  // runs every host tasklet: its function travels in the args
  conveyor::Runtime runtime;
  conveyor::capi::RangeTable ranges;
};
