// eager: a ready task goes to a pool that every idle worker with an implementation takes from.
#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

class EagerScheduler final : public Scheduler {
 public:
  using Scheduler::Scheduler;

 protected:
  Placement place(Task& task) override { return {-1, runnable(*task.codelet)}; }
};

}  // namespace

std::unique_ptr<Scheduler> make_eager_scheduler(SchedulerContext context) {
  return std::make_unique<EagerScheduler>(std::move(context));
}

}  // namespace conveyor::runtime::scheduler
