#include "distributed/failure_guard.hpp"

#include <fmt/format.h>

#include <exception>

#include "device/codelet_impl.hpp"  // the one internal header the layer reads: see the .hpp
#include "distributed/transport.hpp"

namespace conveyor::distributed {

FailureGuard::FailureGuard(std::shared_ptr<Transport> transport, std::vector<std::string> workers)
    : transport_(std::move(transport)),
      workers_(std::make_shared<const std::vector<std::string>>(std::move(workers))) {}

const Codelet& FailureGuard::guarded(const Codelet& codelet) {
  const auto& impl = *device::CodeletAccess::impl(codelet);
  const void* key = &impl;
  if (auto it = twins_.find(key); it != twins_.end()) return it->second.twin;

  auto wrap = [transport = transport_, workers = workers_](TaskFunction fn) -> TaskFunction {
    return [fn = std::move(fn), transport, workers](const TaskContext& t) {
      auto report = [&](const char* what) {
        std::size_t w = static_cast<std::size_t>(t.worker());
        std::string where = w < workers->size() ? (*workers)[w] : std::string(t.device());
        transport->abort(fmt::format("task '{}' (#{}) failed on {}: {}", t.task_name(), t.task_id(),
                                     where, what));
      };
      try {
        fn(t);
      } catch (const std::exception& e) {
        report(e.what());
        throw;
      } catch (...) {
        report("unknown exception");
        throw;
      }
    };
  };
  Codelet twin(codelet.name());
  if (impl.has(DeviceKind::Cpu)) twin.cpu(wrap(impl.fn(DeviceKind::Cpu)));
  if (impl.has(DeviceKind::Cuda)) twin.cuda(wrap(impl.fn(DeviceKind::Cuda)));
  if (impl.has(DeviceKind::OpenCL)) twin.opencl(impl.program, wrap(impl.fn(DeviceKind::OpenCL)));
  if (impl.flops) twin.flops(impl.flops);
  auto [it, inserted] = twins_.emplace(key, Entry{codelet, std::move(twin)});
  return it->second.twin;
}

}  // namespace conveyor::distributed
