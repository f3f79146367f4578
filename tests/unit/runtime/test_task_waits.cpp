// Runtime::wait(TaskId), wait_for and finished: waiting for one task, its failure rethrown, tasks
// finished (and their Task objects recycled) long before the wait, ids interleaved with acquires.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/cpu_options.hpp"

namespace conveyor {
namespace {

using namespace std::chrono_literals;

using test::cpu_options;

Codelet add_one() {
  Codelet c("add_one");
  c.cpu([](const TaskContext& t) {
    auto* x = t.data<int>(0);
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) x[i] += 1;
  });
  return c;
}

/// A task that runs until `open` is set (10 s at most, so that a broken test cannot hang).
Codelet gate(const std::atomic<bool>& open) {
  Codelet c("gate");
  c.cpu([&open](const TaskContext&) {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!open && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
  });
  return c;
}

TEST(TaskWaits, WaitsForOneTaskOnly) {
  Runtime rt(cpu_options(2));
  std::vector<int> a(4, 0), b(4, 0);
  Data da = rt.register_vector(a.data(), a.size(), "a");
  Data db = rt.register_vector(b.data(), b.size(), "b");
  std::atomic<bool> open{false};
  TaskId blocked = rt.submit(gate(open), {{da, Access::ReadWrite}});
  TaskId other = rt.submit(add_one(), {{db, Access::ReadWrite}});
  rt.wait(other);  // independent of the blocked task: returns while it still runs
  EXPECT_TRUE(rt.finished(other));
  EXPECT_FALSE(rt.finished(blocked));
  EXPECT_FALSE(rt.wait_for(blocked, 20ms));
  EXPECT_FALSE(rt.wait_for(blocked, 0s));
  open = true;
  EXPECT_TRUE(rt.wait_for(blocked, 10s));
  EXPECT_TRUE(rt.finished(blocked));
  rt.wait_all();
  EXPECT_EQ(b, std::vector<int>(4, 1));
}

TEST(TaskWaits, AFailedTaskAndItsDependantsRethrow) {
  Runtime rt(cpu_options(2));
  std::vector<int> v(4, 0);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet boom("boom");
  boom.cpu([](const TaskContext&) { throw std::runtime_error("kaboom"); });
  TaskId ok = rt.submit(add_one(), {{d, Access::ReadWrite}});
  TaskId failed = rt.submit(boom, {{d, Access::ReadWrite}}, 0, "boom 7");
  TaskId cancelled = rt.submit(add_one(), {{d, Access::ReadWrite}}, 0, "after boom");
  EXPECT_NO_THROW(rt.wait(ok));
  auto message_of = [&](TaskId id) {
    try {
      rt.wait(id);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string failure = message_of(failed);
  EXPECT_NE(failure.find("boom 7"), std::string::npos) << failure;
  EXPECT_NE(failure.find("kaboom"), std::string::npos) << failure;
  EXPECT_NE(failure.find("#" + std::to_string(failed) + ")"), std::string::npos) << failure;
  const std::string not_run = message_of(cancelled);
  EXPECT_NE(not_run.find("after boom"), std::string::npos) << not_run;
  EXPECT_NE(not_run.find("not run"), std::string::npos) << not_run;
  EXPECT_TRUE(rt.finished(failed));  // finished says whether, without throwing
  // wait_all still reports the failure, and a wait after it still does.
  EXPECT_THROW(rt.wait_all(), Error);
  EXPECT_NE(message_of(failed).find("kaboom"), std::string::npos);
  EXPECT_EQ(message_of(ok), "no error");
  EXPECT_EQ(v, std::vector<int>(4, 1));
}

TEST(TaskWaits, TasksFinishedLongAgoReturnAtOnce) {
  Runtime rt(cpu_options(2));
  std::vector<int> a(1, 0), b(1, 0);
  Data da = rt.register_vector(a.data(), a.size(), "a");
  Data db = rt.register_vector(b.data(), b.size(), "b");
  std::atomic<bool> open{false};
  // One task held back while thousands after it finish: the record of finished ids grows past
  // its first size, and the Task objects of the finished ones are recycled meanwhile.
  TaskId first = rt.submit(add_one(), {{db, Access::ReadWrite}});
  TaskId blocked = rt.submit(gate(open), {{da, Access::ReadWrite}});
  std::vector<TaskId> later;
  for (int i = 0; i < 5000; ++i) later.push_back(rt.submit(add_one(), {{db, Access::ReadWrite}}));
  rt.wait(later.back());
  for (TaskId id : {first, later.front(), later[2500], later.back()}) {
    EXPECT_TRUE(rt.finished(id)) << id;
    EXPECT_NO_THROW(rt.wait(id));
  }
  EXPECT_FALSE(rt.finished(blocked));
  open = true;
  rt.wait_all();
  EXPECT_TRUE(rt.finished(blocked));
  EXPECT_NO_THROW(rt.wait(first));
  EXPECT_EQ(b[0], 5001);
}

TEST(TaskWaits, IdsInterleavedWithAcquires) {
  Runtime rt(cpu_options(1));
  std::vector<int> v(2, 0);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  TaskId before = rt.submit(add_one(), {{d, Access::ReadWrite}});
  {
    HostAccess access = rt.acquire(d, Access::ReadWrite);  // takes an id of its own
    access.as<int>()[0] += 10;
  }
  TaskId after = rt.submit(add_one(), {{d, Access::ReadWrite}});
  EXPECT_GT(after, before + 1);
  rt.wait(after);
  EXPECT_TRUE(rt.finished(before));
  rt.wait_all();
  EXPECT_EQ(v, (std::vector<int>{12, 2}));
}

TEST(TaskWaits, UnknownIdsAndBadTimeoutsAreUsageErrors) {
  Runtime rt(cpu_options(1));
  EXPECT_THROW(rt.wait(1), UsageError);  // nothing submitted yet
  std::vector<int> v(1, 0);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  TaskId id = rt.submit(add_one(), {{d, Access::ReadWrite}});
  EXPECT_THROW(rt.wait(0), UsageError);
  EXPECT_THROW(rt.wait(id + 1), UsageError);
  EXPECT_THROW((void)rt.finished(id + 100), UsageError);
  EXPECT_THROW((void)rt.wait_for(id, -1s), UsageError);
  EXPECT_TRUE(rt.wait_for(id, std::chrono::duration<double>(1e30)));  // no overflow: waits
  rt.wait_all();
}

}  // namespace
}  // namespace conveyor
