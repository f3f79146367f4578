#pragma once
// The runtime's side of the public Codelet and TaskContext: a codelet's implementations keyed by
// device kind (so that a new kind adds no field), and the accessors with which the runtime and the
// device drivers fill in a TaskContext. Users never include this.
#include <array>
#include <memory>
#include <string>

#include "conveyor/codelet.hpp"

namespace conveyor::device {

inline constexpr std::size_t kDeviceKinds = 3;
inline constexpr std::size_t index(DeviceKind kind) { return static_cast<std::size_t>(kind); }

struct CodeletImpl {
  std::string name;
  std::array<TaskFunction, kDeviceKinds> run;  ///< by DeviceKind; empty where there is none
  OpenclProgram program;
  FlopsFunction flops;
  /// A control task (the MPI layer's sends and receives): on a simulated platform its CPU
  /// function runs even when kernels do not, and the host's model gives it no time (what it
  /// starts is timed elsewhere).
  bool control = false;

  const TaskFunction& fn(DeviceKind kind) const { return run[index(kind)]; }
  bool has(DeviceKind kind) const { return static_cast<bool>(fn(kind)); }
};

struct CodeletAccess {
  static const std::shared_ptr<CodeletImpl>& impl(const Codelet& c) { return c.impl_; }
};

/// Fills in the private fields of a TaskContext.
struct TaskContextAccess {
  static std::vector<Buffer>& buffers(TaskContext& t) { return t.buffers_; }
  static void set_task(TaskContext& t, DeviceKind kind, std::string_view device, int worker,
                       std::string_view name, TaskId id, std::span<const std::byte> args) {
    t.kind_ = kind;
    t.device_ = device;
    t.worker_ = worker;
    t.task_name_ = name;
    t.task_id_ = id;
    t.args_ = args;
    t.stream_ = t.kernel_ = nullptr;
    t.sink_ = nullptr;
    t.task_ = nullptr;
    t.deferred_ = false;
  }
  static void set_stream(TaskContext& t, void* stream, void* kernel = nullptr) {
    t.stream_ = stream;
    t.kernel_ = kernel;
  }
  /// CPU tasks: lets the implementation defer the task's end to `sink`.
  static void allow_defer(TaskContext& t, detail::CompletionSink* sink, void* task) {
    t.sink_ = sink;
    t.task_ = task;
  }
  static bool deferred(const TaskContext& t) { return t.deferred_; }
};

}  // namespace conveyor::device
