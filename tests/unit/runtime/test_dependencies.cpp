// Dependency inference from submission order: RAW, WAR and WAW serialise; readers of the same data
// run at once; independent chains do not wait for each other.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "conveyor/runtime.hpp"
#include "unit/runtime/cpu_options.hpp"

namespace conveyor {
namespace {

using test::cpu_options;

// Records, per task, when it started and ended on a global event counter.
struct Clock {
  std::atomic<int> tick{0};
  struct Span {
    std::atomic<int> start{-1}, end{-1};
  };
  Span spans[8];
};

Codelet recorder(Clock& clock, const char* name, int index, int sleep_ms) {
  Codelet c(name);
  c.cpu([&clock, index, sleep_ms](const TaskContext&) {
    clock.spans[index].start = clock.tick++;
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    clock.spans[index].end = clock.tick++;
  });
  return c;
}

void expect_after(const Clock& c, int later, int earlier) {
  EXPECT_GT(c.spans[later].start.load(), c.spans[earlier].end.load())
      << "task " << later << " started before task " << earlier << " ended";
}

TEST(RuntimeDependencies, ReadAfterWriteWaitsForTheWriter) {
  Runtime rt(cpu_options(4));
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  Clock clock;
  rt.submit(recorder(clock, "writer", 0, 30), {{d, Access::Write}});
  rt.submit(recorder(clock, "reader", 1, 0), {{d, Access::Read}});
  rt.wait_all();
  expect_after(clock, 1, 0);
}

TEST(RuntimeDependencies, WriteAfterReadWaitsForTheReaders) {
  Runtime rt(cpu_options(4));
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  Clock clock;
  rt.submit(recorder(clock, "reader a", 0, 30), {{d, Access::Read}});
  rt.submit(recorder(clock, "reader b", 1, 30), {{d, Access::Read}});
  rt.submit(recorder(clock, "writer", 2, 0), {{d, Access::ReadWrite}});
  rt.wait_all();
  expect_after(clock, 2, 0);
  expect_after(clock, 2, 1);
}

TEST(RuntimeDependencies, WriteAfterWriteKeepsSubmissionOrder) {
  Runtime rt(cpu_options(4));
  std::vector<int> v(1, 0);
  Data d = rt.register_vector(v.data(), 1, "v");
  Codelet set("set");
  set.cpu([](const TaskContext& t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(t.args<int>() == 1 ? 20 : 0));
    *t.data<int>(0) = t.args<int>();
  });
  for (int value = 1; value <= 5; ++value)
    rt.submit(set, {{d, Access::Write}}, 0, {}, std::as_bytes(std::span(&value, 1)));
  rt.wait_all();
  EXPECT_EQ(v[0], 5);
}

TEST(RuntimeDependencies, ReadersOfTheSameDataRunConcurrently) {
  Runtime rt(cpu_options(2));
  int x = 7;
  Data d = rt.register_vector(&x, 1, "x");
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  bool both = false;
  Codelet meet("meet");
  meet.cpu([&](const TaskContext&) {
    std::unique_lock lock(m);
    ++arrived;
    cv.notify_all();
    // Both readers must be inside at once; a generous bound keeps a broken runtime from hanging.
    if (cv.wait_for(lock, std::chrono::seconds(20), [&] { return arrived == 2; })) both = true;
  });
  rt.submit(meet, {{d, Access::Read}});
  rt.submit(meet, {{d, Access::Read}});
  rt.wait_all();
  EXPECT_TRUE(both) << "two Read tasks on the same data did not overlap";
}

TEST(RuntimeDependencies, ChainsOfUpdatesGiveTheSequentialResult) {
  Runtime rt(cpu_options(4));
  constexpr int kData = 8, kTasks = 2000;
  std::vector<long> values(kData, 0);
  std::vector<Data> data;
  for (int i = 0; i < kData; ++i) data.push_back(rt.register_vector(&values[i], 1));
  // x[i] = x[i] * 3 + x[j]: order-sensitive, so any missed dependency shows.
  Codelet mix("mix");
  mix.cpu([](const TaskContext& t) {
    long src = t.buffer(0).ptr == t.buffer(1).ptr ? 0 : *t.data<long>(1);
    long& dst = *t.data<long>(0);
    dst = (dst * 3 + src + 1) % 1000003;
  });
  std::vector<long> expected(kData, 0);
  unsigned seed = 12345;
  for (int k = 0; k < kTasks; ++k) {
    seed = seed * 1103515245 + 12345;
    int i = (seed >> 8) % kData;
    int j = (seed >> 16) % kData;
    if (j == i) j = (j + 1) % kData;
    rt.submit(mix, {{data[i], Access::ReadWrite}, {data[j], Access::Read}});
    expected[i] = (expected[i] * 3 + expected[j] + 1) % 1000003;
  }
  rt.wait_all();
  EXPECT_EQ(values, expected);
  EXPECT_EQ(rt.stats().tasks, static_cast<std::uint64_t>(kTasks));
}

TEST(RuntimeDependencies, HigherPriorityRunsFirstAmongReadyTasks) {
  Runtime rt(cpu_options(1));
  int gate = 0;
  Data g = rt.register_vector(&gate, 1, "gate");
  std::vector<int> order;
  std::mutex m;
  // The block task holds the only worker, whatever the timing, until every note is queued.
  std::atomic<bool> entered{false}, released{false};
  Codelet block("block");
  block.cpu([&](const TaskContext&) {
    entered = true;
    entered.notify_all();
    released.wait(false);
  });
  Codelet note("note");
  note.cpu([&](const TaskContext& t) {
    std::lock_guard lock(m);
    order.push_back(t.args<int>());
  });
  rt.submit(block, {{g, Access::Write}});
  entered.wait(false);
  for (int p : {1, 5, 3}) rt.submit(note, {}, p, {}, std::as_bytes(std::span(&p, 1)));
  released = true;
  released.notify_all();
  rt.wait_all();
  EXPECT_EQ(order, (std::vector<int>{5, 3, 1}));
}

}  // namespace
}  // namespace conveyor
