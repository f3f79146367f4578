// offload: placement by codelet, as in seed 003 (gemm offloaded, the rest on CPUs). Tasks of the
// codelets named in RuntimeOptions::offload go to a pool the devices take from; the others to the
// CPUs' pool (or wherever they can run, when they have no CPU implementation).
#include "conveyor/error.hpp"
#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

class OffloadScheduler final : public Scheduler {
 public:
  explicit OffloadScheduler(SchedulerContext context) : Scheduler(std::move(context)) {
    if (this->context().offload.empty())
      throw UsageError("scheduler 'offload' needs the codelets to offload (e.g. offload = gemm)");
    if (device_kinds() == 0) throw UsageError("scheduler 'offload' needs a device");
  }

 protected:
  bool keeps_offloaded_on_devices() const override { return true; }
  Placement place(Task& task) override {
    KindMask can = runnable(*task.codelet);
    if (offloaded(*task.codelet)) return {-1, can & device_kinds()};
    return {-1, (can & kCpuMask) ? kCpuMask : can};
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_offload_scheduler(SchedulerContext context) {
  return std::make_unique<OffloadScheduler>(std::move(context));
}

}  // namespace conveyor::runtime::scheduler
