// A worker's own queue read in order without taking from it (Scheduler::next_in_queue, what the
// runtime ranks the next uses of device data by): the same tasks in the same order as sorting
// the whole queue by priority, then readiness.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "runtime/scheduler/scheduler.hpp"

namespace conveyor::runtime::scheduler {
namespace {

std::vector<Task*> sorted_queue(const Scheduler& s, int worker) {
  std::span<Task* const> queue = s.own_queue(worker);
  std::vector<Task*> all(queue.begin(), queue.end());
  std::sort(all.begin(), all.end(), [](const Task* a, const Task* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->seq < b->seq;
  });
  return all;
}

TEST(SchedulerQueue, NextInQueueIsTheQueuesOrderWithoutTakingFromIt) {
  SchedulerContext context;
  context.workers.push_back({DeviceKind::Cuda, 1, "cuda:0 worker", "cuda:0"});
  auto s = make_scheduler("eager", context);
  std::mt19937 random(20261128);
  std::vector<Task> tasks(500);
  for (auto& t : tasks) {
    t.priority = static_cast<int>(random() % 12);  // many ties: readiness decides among them
    s->enqueue(&t, {0, 0});
  }
  std::vector<Task*> next;
  for (int round = 0; round < 3; ++round) {
    const std::vector<Task*> expected = sorted_queue(*s, 0);
    for (std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{64}, expected.size(), expected.size() + 5}) {
      s->next_in_queue(0, count, next);
      const std::size_t n = std::min(count, expected.size());
      ASSERT_EQ(next.size(), n) << count;
      EXPECT_TRUE(std::equal(next.begin(), next.end(), expected.begin())) << count;
    }
    EXPECT_EQ(s->own_queue(0).size(), expected.size());  // nothing was taken
    for (int k = 0; k < 100; ++k) EXPECT_EQ(s->pop(0), expected[static_cast<std::size_t>(k)]);
  }
}

TEST(SchedulerQueue, AnEmptyQueueGivesNothing) {
  SchedulerContext context;
  context.workers.push_back({DeviceKind::Cuda, 1, "cuda:0 worker", "cuda:0"});
  auto s = make_scheduler("eager", context);
  std::vector<Task*> next{nullptr};
  s->next_in_queue(0, 64, next);
  EXPECT_TRUE(next.empty());
}

}  // namespace
}  // namespace conveyor::runtime::scheduler
