// Failure paths: a missing mover, a staging allocation that fails, a copy that fails, a kernel that
// throws. Each gives a clear error and leaves the destination untouched or complete.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "conveyor/pipeline.hpp"

namespace conveyor::test {
namespace {

TEST(PipelineFailures, UnknownMoverIsAUsageError) {
  try {
    make_mover("teleport");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("thread, prefetch, dsa"), std::string::npos) << e.what();
  }
}

TEST(PipelineFailures, NoDsaHereIsAClearUsageError) {
  // This test machine has no DSA work queue (and may lack libaccel-config): either way the
  // error names the problem instead of crashing.
  try {
    make_mover("dsa");
    GTEST_SKIP() << "a DSA work queue exists here";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no DSA work queue found"), std::string::npos) << e.what();
  }
}

TEST(PipelineFailures, StagingAllocationFailureWritesNothing) {
  PipelineConfig config;
  config.threads = 2;
  config.binding = ThreadBinding::None;
  config.block_bytes = 512;
  int allocations = 0;
  std::vector<void*> live;
  config.allocate = [&](std::size_t bytes) -> void* {
    if (++allocations == 2) return nullptr;  // the second thread's ring fails
    void* p = std::aligned_alloc(64, bytes);
    live.push_back(p);
    return p;
  };
  config.release = [&](void* p) {
    std::erase(live, p);
    std::free(p);
  };
  try {
    Pipeline pipeline(make_mover("thread"), config);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot allocate a staging ring"), std::string::npos);
  }
  EXPECT_TRUE(live.empty()) << "the first ring was not released";
}

TEST(PipelineFailures, CopyFailureCompletesTheDestinationAndSaysSo) {
  for (int threads : {1, 2}) {
    for (long failing : {1L, 3L, 7L}) {
      MoverOptions mo;
      mo.fail_copy = failing;
      PipelineConfig config;
      config.threads = threads;
      config.binding = ThreadBinding::None;
      config.block_bytes = 256;
      config.depth = 2;
      Pipeline pipeline(make_mover("thread", mo), config);
      const std::size_t n = 1000;
      std::vector<double> a(n, 0.0), b(n, 2.0), c(n, 0.5);
      try {
        pipeline.run(StreamKernel::Triad, a.data(), b.data(), c.data(), n, 3.0);
        FAIL() << "no exception";
      } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("copy of"), std::string::npos) << what;
        EXPECT_NE(what.find("destination is complete"), std::string::npos) << what;
      }
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], 3.5) << "element " << i;
      // The pipeline stays usable: the next run (no more injected failures) succeeds.
      std::fill(a.begin(), a.end(), 0.0);
      pipeline.run(StreamKernel::Triad, a.data(), b.data(), c.data(), n, 3.0);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], 3.5);
    }
  }
}

// A mover whose every wait fails, written against the public interface.
class BrokenMover final : public Mover {
 public:
  std::string_view name() const override { return "broken"; }
  void open(const MoverSetup&) override {}
  void start_copy(int, int, void*, const void*, std::size_t) override { ++started; }
  void wait(int, int) override {
    ++waited;
    throw MoverError("broken mover: engine error");
  }
  std::atomic<int> started{0}, waited{0};
};

TEST(PipelineFailures, EveryCopyStartedIsWaitedFor) {
  auto owned = std::make_unique<BrokenMover>();
  BrokenMover* mover = owned.get();
  PipelineConfig config;
  config.binding = ThreadBinding::None;
  config.block_bytes = 64;
  config.depth = 4;
  Pipeline pipeline(std::move(owned), config);
  std::vector<double> a(100, 1.0), b(100, 2.0), c(100, 0.0);
  EXPECT_THROW(pipeline.run(StreamKernel::Add, a.data(), b.data(), c.data(), 100, 0), Error);
  EXPECT_EQ(mover->started.load(), mover->waited.load());
  for (double v : c) EXPECT_EQ(v, 3.0);
}

TEST(PipelineFailures, KernelExceptionPropagatesWithoutHanging) {
  PipelineConfig config;
  config.threads = 2;
  config.binding = ThreadBinding::None;
  config.block_bytes = 64;
  Pipeline pipeline(make_mover("thread"), config);
  BlockKernel bad{1, true, [](const double*, const double*, double*, std::size_t) -> double {
                    throw std::runtime_error("kernel failed");
                  }};
  std::vector<double> x(500, 1.0), y(500, 0.0);
  EXPECT_THROW(pipeline.run(bad, {x.data(), nullptr, y.data(), 500}), std::runtime_error);
  BlockKernel missing{1, true, {}};
  EXPECT_THROW(pipeline.run(missing, {x.data(), nullptr, y.data(), 500}), UsageError);
  BlockKernel ok{1, true, [](const double* in, const double*, double* out, std::size_t n) {
                   for (std::size_t i = 0; i < n; ++i) out[i] = in[i];
                   return 0.0;
                 }};
  EXPECT_THROW(pipeline.run(ok, {x.data(), nullptr, nullptr, 500}), UsageError);
  pipeline.run(ok, {x.data(), nullptr, y.data(), 500});
  EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace conveyor::test

namespace conveyor::test {
namespace {

// A mover that copies only every other request and drops the rest, scribbling over the dropped
// slot's buffer: the pipeline must read the source for those.
class HalfMover final : public Mover {
 public:
  std::string_view name() const override { return "half"; }
  void open(const MoverSetup& setup) override {
    pending_.assign(static_cast<std::size_t>(setup.lanes * setup.slots), {});
    slots_ = setup.slots;
  }
  void start_copy(int lane, int slot, void* dst, const void* src, std::size_t bytes) override {
    pending_[static_cast<std::size_t>(lane * slots_ + slot)] = {dst, src, bytes};
  }
  void wait(int lane, int slot) override { wait_or_cancel(lane, slot); }
  bool wait_or_cancel(int lane, int slot) override {
    Request& r = pending_[static_cast<std::size_t>(lane * slots_ + slot)];
    if (++count_ % 2 == 0) {
      std::memset(r.dst, 0xff, r.bytes);  // NaNs: a wrong read shows
      return false;
    }
    std::memcpy(r.dst, r.src, r.bytes);
    return true;
  }
  std::atomic<long> count_{0};

 private:
  struct Request {
    void* dst = nullptr;
    const void* src = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<Request> pending_;
  int slots_ = 0;
};

TEST(PipelineDroppedCopies, DroppedCopiesReadTheSource) {
  PipelineConfig config;
  config.binding = ThreadBinding::None;
  config.block_bytes = 128;
  config.depth = 3;
  Pipeline pipeline(std::make_unique<HalfMover>(), config);
  const std::size_t n = 1001;
  std::vector<double> a(n), b(n), c(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i), b[i] = 1.0 - i;
  pipeline.run(StreamKernel::Add, a.data(), b.data(), c.data(), n, 0);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.0) << i;
  EXPECT_GT(pipeline.staged_fraction(), 0.4);
  EXPECT_LT(pipeline.staged_fraction(), 0.6);
}

}  // namespace
}  // namespace conveyor::test
