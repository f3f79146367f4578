// locality: a task goes to the memory space that already holds the most bytes of its data (seed
// 003's future work), so that fewer copies are needed; ties go to the space with the shortest
// queue. The host space means the CPUs' pool. RuntimeOptions::offload, when set, limits the
// offloaded codelets to devices and the others to CPUs, as "offload" does.
#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

class LocalityScheduler final : public Scheduler {
 public:
  using Scheduler::Scheduler;

 protected:
  bool keeps_offloaded_on_devices() const override { return true; }
  Placement place(Task& task) override {
    KindMask can = runnable(*task.codelet);
    if (!context().offload.empty()) {
      if (offloaded(*task.codelet))
        can &= device_kinds();
      else if (can & kCpuMask)
        can = kCpuMask;
    }
    if ((can & device_kinds()) == 0) return {-1, can};

    const auto& workers = context().workers;
    int best = -1;
    std::size_t best_bytes = 0;
    bool cpu_candidate = (can & kCpuMask) != 0;
    std::size_t host_bytes = cpu_candidate ? bytes_valid(task, 0) : 0;
    for (std::size_t w = 0; w < workers.size(); ++w) {
      if (workers[w].space == 0 || !(can & bit(workers[w].kind))) continue;
      std::size_t bytes = bytes_valid(task, workers[w].space);
      if (best < 0 || bytes > best_bytes ||
          (bytes == best_bytes && queued(static_cast<int>(w)) < queued(best))) {
        best = static_cast<int>(w);
        best_bytes = bytes;
      }
    }
    if (cpu_candidate && host_bytes >= best_bytes && host_bytes > 0) return {-1, kCpuMask};
    if (cpu_candidate && best_bytes == 0) return {-1, can};  // nothing anywhere: eager
    return {best, 0};
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_locality_scheduler(SchedulerContext context) {
  return std::make_unique<LocalityScheduler>(std::move(context));
}

}  // namespace conveyor::runtime::scheduler
