// round-robin: device-capable tasks (those of the offloaded codelets, when RuntimeOptions::offload
// names some) are dealt to the devices in turn, whatever data they hold: the seed's multi-GPU
// baseline. Other tasks go to the CPUs.
#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

class RoundRobinScheduler final : public Scheduler {
 public:
  using Scheduler::Scheduler;

  // A deal the runtime does not act on (run-ahead's, for a task not ready yet) gives the turn back.
  void withdraw(Task& /*task*/, Placement p) override {
    if (p.worker >= 0 && static_cast<std::size_t>(p.worker) == next_) next_ = dealt_from_;
  }

 protected:
  Placement place(Task& task) override {
    KindMask can = runnable(*task.codelet);
    bool eligible =
        (can & device_kinds()) != 0 && (context().offload.empty() || offloaded(*task.codelet));
    if (eligible) {
      const auto& workers = context().workers;
      dealt_from_ = next_;
      for (std::size_t tries = 0; tries < workers.size(); ++tries) {
        next_ = (next_ + 1) % workers.size();
        if (workers[next_].space != 0 && (can & bit(workers[next_].kind)))
          return {static_cast<int>(next_), 0};
      }
    }
    return {-1, (can & kCpuMask) ? kCpuMask : can};
  }

 private:
  std::size_t next_ = 0;
  std::size_t dealt_from_ = 0;  // next_ before the last deal
};

}  // namespace

std::unique_ptr<Scheduler> make_round_robin_scheduler(SchedulerContext context) {
  return std::make_unique<RoundRobinScheduler>(std::move(context));
}

}  // namespace conveyor::runtime::scheduler
