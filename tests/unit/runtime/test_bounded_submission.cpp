// Bounded submission (RuntimeOptions::max_submitted): submit() waits past the limit and resumes as
// tasks finish, and never waits where waiting would stall the graph. Every wait here is bounded:
// a bug fails the test, it does not hang it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"

namespace conveyor {
namespace {

using namespace std::chrono_literals;

RuntimeOptions options(std::uint64_t max_submitted) {
  RuntimeOptions o;
  o.cpus = 2;
  o.pin = false;
  o.max_submitted = max_submitted;
  return o;
}

Codelet add_one() {
  Codelet c("add_one");
  c.cpu([](const TaskContext& t) { ++*t.data<int>(0); });
  return c;
}

// Runs `body` on its own thread; fails (and ends the process, which a hung runtime would
// otherwise keep alive) if it takes longer than `limit`.
template <typename Body>
void within(std::chrono::seconds limit, Body body) {
  auto done = std::async(std::launch::async, body);
  if (done.wait_for(limit) == std::future_status::timeout) {
    ADD_FAILURE() << "still running after " << limit.count() << " s: a deadlock";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  done.get();
}

TEST(BoundedSubmission, SubmitWaitsPastTheLimitAndResumesAsTasksFinish) {
  Runtime rt(options(8));
  std::atomic<bool> gate{false};
  Codelet hold("hold");
  hold.cpu([&](const TaskContext& t) {
    while (!gate.load()) std::this_thread::sleep_for(1ms);
    ++*t.data<int>(0);
  });
  int x = 0;
  Data dx = rt.register_vector(&x, 1, "x");
  Codelet one = add_one();
  std::atomic<bool> submitted_all{false};
  within(60s, [&] {
    std::thread submitter([&] {
      rt.submit(hold, {{dx, Access::ReadWrite}});
      for (int i = 0; i < 200; ++i) rt.submit(one, {{dx, Access::ReadWrite}});
      submitted_all = true;
    });
    std::this_thread::sleep_for(200ms);
    // Everything waits behind the first task: the submitter must be waiting for room.
    EXPECT_FALSE(submitted_all.load());
    gate = true;
    submitter.join();
    rt.wait_all();
  });
  EXPECT_EQ(x, 201);
  RuntimeStats s = rt.stats();
  EXPECT_EQ(s.max_submitted, 8u);
  EXPECT_GT(s.submit_waits, 0u);
  EXPECT_EQ(s.tasks, 201u);
}

TEST(BoundedSubmission, TasksThatSubmitTasksNeverWait) {
  Runtime rt(options(4));
  std::vector<int> v(64, 0);
  std::vector<Data> d;
  for (std::size_t i = 0; i < v.size(); ++i) d.push_back(rt.register_vector(&v[i], 1));
  Codelet one = add_one();
  Codelet spawn("spawn");
  spawn.cpu([&](const TaskContext&) {
    for (int round = 0; round < 4; ++round)
      for (auto& data : d) rt.submit(one, {{data, Access::ReadWrite}});
  });
  within(60s, [&] {
    rt.submit(spawn, {});
    rt.submit(spawn, {});
    rt.wait_all();
  });
  for (int x : v) EXPECT_EQ(x, 8);
}

TEST(BoundedSubmission, AnOpenHostAccessDoesNotMakeSubmitWait) {
  Runtime rt(options(4));
  int x = 0;
  Data dx = rt.register_vector(&x, 1, "x");
  Codelet one = add_one();
  within(60s, [&] {
    HostAccess h = rt.acquire(dx, Access::ReadWrite);
    // These wait for the release below, which only this thread can do.
    for (int i = 0; i < 50; ++i) rt.submit(one, {{dx, Access::ReadWrite}});
    *h.as<int>() = 100;
    h.release();
    rt.wait_all();
  });
  EXPECT_EQ(x, 150);
}

TEST(BoundedSubmission, DeferredTasksOutstandingDoNotMakeSubmitWait) {
  Runtime rt(options(4));
  int x = 0;
  Data dx = rt.register_vector(&x, 1, "x");
  // A task that ends when this thread says so (as the MPI layer's messages end when the network
  // says so): waiting for room behind it would never end.
  std::promise<Completion> handed;
  Codelet later("later");
  later.cpu([&](const TaskContext& t) { handed.set_value(t.defer()); });
  Codelet one = add_one();
  within(60s, [&] {
    rt.submit(later, {{dx, Access::ReadWrite}});
    Completion c = handed.get_future().get();
    for (int i = 0; i < 50; ++i) rt.submit(one, {{dx, Access::ReadWrite}});
    c.done();
    rt.wait_all();
  });
  EXPECT_EQ(x, 50);
}

TEST(BoundedSubmission, TheLimitComesFromOptionsTheEnvironmentOrMemory) {
  EXPECT_GE(Runtime(options(0)).stats().max_submitted, 100'000u);
  ASSERT_EQ(setenv("CONVEYOR_MAX_SUBMITTED", "3", 1), 0);
  EXPECT_EQ(Runtime(options(0)).stats().max_submitted, 3u);
  EXPECT_EQ(Runtime(options(7)).stats().max_submitted, 7u);  // the option wins
  ASSERT_EQ(setenv("CONVEYOR_MAX_SUBMITTED", "many", 1), 0);
  EXPECT_THROW(Runtime(options(0)), UsageError);
  unsetenv("CONVEYOR_MAX_SUBMITTED");
}

}  // namespace
}  // namespace conveyor
