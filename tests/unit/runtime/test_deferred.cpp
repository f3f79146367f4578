// Deferred CPU tasks (TaskContext::defer): the task ends when its Completion is done or failed,
// from another thread, not when the function returns; a worker is not held meanwhile.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "conveyor/runtime.hpp"
#include "unit/runtime/emulated_device.hpp"

namespace conveyor {
namespace {

/// Finishes the Completions handed to it from its own thread, in order, after a short delay each:
/// a stand-in for an MPI progress engine.
class Finisher {
 public:
  Finisher() : thread_([this] { run(); }) {}
  ~Finisher() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void finish_later(Completion c, std::function<void()> work, bool fail = false) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back({std::move(c), std::move(work), fail});
    }
    cv_.notify_all();
  }

 private:
  struct Item {
    Completion completion;
    std::function<void()> work;
    bool fail;
  };
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Item item = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      item.work();
      if (item.fail)
        item.completion.fail("the remote end went away");
      else
        item.completion.done();
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::thread thread_;
};

RuntimeOptions one_cpu() {
  RuntimeOptions o;
  o.cpus = 1;
  o.pin = false;
  return o;
}

TEST(DeferredTasks, DependantsWaitForDoneNotForTheFunction) {
  Finisher finisher;
  Runtime rt(one_cpu());
  std::vector<int> v(8, 0);
  Data d = rt.register_vector(v.data(), v.size(), "v");
  Codelet fill("fill_later");
  fill.cpu([&](const TaskContext& t) {
    int* x = t.data<int>(0);
    std::size_t n = t.buffer(0).rows;
    finisher.finish_later(t.defer(), [x, n] {
      for (std::size_t i = 0; i < n; ++i) x[i] = 7;
    });
  });
  Codelet twice("twice");
  twice.cpu([](const TaskContext& t) {
    for (std::size_t i = 0; i < t.buffer(0).rows; ++i) t.data<int>(0)[i] *= 2;
  });
  for (int k = 0; k < 5; ++k) {
    rt.submit(fill, {{d, Access::Write}});
    rt.submit(twice, {{d, Access::ReadWrite}});
  }
  rt.wait_all();
  EXPECT_EQ(v, std::vector<int>(8, 14));
  EXPECT_EQ(rt.stats().tasks, 10u);
}

TEST(DeferredTasks, TheOnlyWorkerRunsOtherTasksWhileOneIsDeferred) {
  // One CPU worker: if a deferred task held it, the independent task could never run, and the
  // deferred one only finishes after the independent one has run.
  Runtime rt(one_cpu());
  std::mutex m;
  std::condition_variable cv;
  bool independent_ran = false;
  std::vector<Completion> parked;
  int a = 0, b = 0;
  Data da = rt.register_vector(&a, 1, "a");
  Data db = rt.register_vector(&b, 1, "b");
  Codelet park("park");
  park.cpu([&](const TaskContext& t) {
    std::lock_guard lock(m);
    parked.push_back(t.defer());
  });
  Codelet mark("mark");
  mark.cpu([&](const TaskContext& t) {
    *t.data<int>(0) = 1;
    std::lock_guard lock(m);
    independent_ran = true;
    cv.notify_all();
  });
  rt.submit(park, {{da, Access::ReadWrite}});
  rt.submit(mark, {{db, Access::Write}});
  std::thread releaser([&] {
    std::unique_lock lock(m);
    bool ok = cv.wait_for(lock, std::chrono::seconds(30), [&] { return independent_ran; });
    for (auto& c : parked) ok ? c.done() : c.fail("independent task never ran");
    parked.clear();
  });
  rt.wait_all();
  releaser.join();
  EXPECT_TRUE(independent_ran);
  EXPECT_EQ(b, 1);
}

TEST(DeferredTasks, FailReachesWaitAllAndCancelsDependants) {
  Finisher finisher;
  Runtime rt(one_cpu());
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  Codelet recv("recv");
  recv.cpu([&](const TaskContext& t) {
    finisher.finish_later(
        t.defer(), [] {}, true);
  });
  Codelet inc("inc");
  inc.cpu([](const TaskContext& t) { ++*t.data<int>(0); });
  rt.submit(recv, {{d, Access::Write}}, 0, "recv 3");
  rt.submit(inc, {{d, Access::ReadWrite}});
  try {
    rt.wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("recv 3"), std::string::npos) << what;
    EXPECT_NE(what.find("the remote end went away"), std::string::npos) << what;
    EXPECT_NE(what.find("1 dependent task not run"), std::string::npos) << what;
  }
  EXPECT_EQ(x, 0);
}

TEST(DeferredTasks, ALostCompletionFailsTheTaskInsteadOfHanging) {
  Runtime rt(one_cpu());
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  Codelet forget("forget");
  forget.cpu([](const TaskContext& t) { Completion dropped = t.defer(); });
  rt.submit(forget, {{d, Access::Write}});
  try {
    rt.wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("abandoned"), std::string::npos) << e.what();
  }
}

TEST(DeferredTasks, DoneInsideTheFunctionIsFine) {
  Runtime rt(one_cpu());
  int x = 0;
  Data d = rt.register_vector(&x, 1, "x");
  Codelet now("now");
  now.cpu([](const TaskContext& t) {
    Completion c = t.defer();
    *t.data<int>(0) += 1;
    c.done();
    EXPECT_FALSE(c.pending());
    EXPECT_THROW(c.done(), UsageError);
  });
  for (int i = 0; i < 3; ++i) rt.submit(now, {{d, Access::ReadWrite}});
  rt.wait_all();
  EXPECT_EQ(x, 3);
}

TEST(DeferredTasks, DeferOnADeviceIsRefusedClearly) {
  RuntimeOptions o = one_cpu();
  o.cpus = 0;
  auto rt = test::make_emulated_runtime(o, 1);
  int x = 0;
  Data d = rt->register_vector(&x, 1, "x");
  Codelet c("dev");
  c.cuda([](const TaskContext& t) { t.defer(); });
  rt->submit(c, {{d, Access::ReadWrite}});
  try {
    rt->wait_all();
    FAIL() << "wait_all did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("defer() is for CPU implementations"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace conveyor
