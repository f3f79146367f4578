#pragma once
// An emulated device for runtime tests: memory from the heap, a lane run in order by its own
// thread (so copies and kernels really are asynchronous), and the CUDA kind, so that codelets' cuda
// implementations run on it with host pointers. Runs anywhere, under the sanitizers too. It can
// fail allocations on demand.
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "conveyor/error.hpp"
#include "runtime/device_driver.hpp"
#include "runtime/testing.hpp"

namespace conveyor::test {

/// What an emulated device was asked to page-lock; shared so that a test can read it after the
/// runtime (and the device) are gone.
struct PinLog {
  std::mutex mutex;
  std::map<const void*, std::size_t> pinned;  ///< ranges pinned now
  int pins = 0, unpins = 0;
};

class EmulatedDevice final : public runtime::DeviceDriver {
 public:
  explicit EmulatedDevice(std::string id, std::uint64_t memory = 1ull << 30)
      : id_(std::move(id)), memory_(memory), thread_([this] { run(); }) {}
  ~EmulatedDevice() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::string& id() const override { return id_; }
  std::uint64_t memory_bytes() const override { return memory_; }

  void* allocate(std::size_t bytes) override {
    if (fail_allocations_) throw DeviceError(id_ + ": emulated allocation failure");
    allocations_++;
    return std::calloc(bytes, 1);
  }
  void deallocate(void* block) noexcept override {
    frees_++;
    std::free(block);
  }

  bool pin_host(void* ptr, std::size_t bytes) override {
    std::lock_guard lock(pin_log_->mutex);
    pin_log_->pinned[ptr] = bytes;
    ++pin_log_->pins;
    return true;
  }
  void unpin_host(void* ptr) noexcept override {
    std::lock_guard lock(pin_log_->mutex);
    pin_log_->pinned.erase(ptr);
    ++pin_log_->unpins;
  }
  std::shared_ptr<PinLog> pin_log() const { return pin_log_; }

  void enqueue_h2d(void* dst, const runtime::HostRegion& src) override {
    push([dst, src] { copy_2d(static_cast<char*>(dst), src.width, src.ptr, src.pitch, src); });
  }
  void enqueue_d2h(const runtime::HostRegion& dst, const void* src) override {
    push(
        [dst, src] { copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst); });
  }
  // Emulated devices share the host's address space, so they "peer copy" with each other.
  bool can_peer_from(const runtime::DeviceDriver& other) const override {
    return dynamic_cast<const EmulatedDevice*>(&other) != nullptr && &other != this;
  }
  void enqueue_peer(void* dst, const runtime::DeviceDriver&, const void* src,
                    std::size_t bytes) override {
    push([dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }
  void launch(const Codelet::Impl& codelet, TaskContext& ctx, std::string_view) override {
    ctx.stream_ = this;
    TaskContext copy = ctx;
    const Codelet::Impl* c = &codelet;
    push([c, copy] { c->cuda(copy); });
  }
  void notify(runtime::DoneCallback done, void* user) override {
    push([done, user] { done(user, nullptr); });
  }
  void drain_trace(std::vector<runtime::TimedOp>&) override {}
  void copy_to_host(const runtime::HostRegion& dst, const void* src) override {
    copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst);
  }

  /// Waits until the lane has run everything enqueued so far.
  void sync() {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    push([&] {
      std::lock_guard lock(m);
      done = true;
      cv.notify_one();
    });
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
  }

  std::atomic<bool> fail_allocations_{false};
  std::atomic<int> allocations_{0};
  std::atomic<int> frees_{0};

 private:
  static void copy_2d(char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
                      const runtime::HostRegion& shape) {
    for (std::size_t c = 0; c < shape.height; ++c)
      std::memcpy(dst + c * dst_pitch, src + c * src_pitch, shape.width);
  }
  void push(std::function<void()> op) {
    {
      std::lock_guard lock(mutex_);
      ops_.push_back(std::move(op));
    }
    cv_.notify_one();
  }
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !ops_.empty(); });
      if (ops_.empty()) return;
      auto op = std::move(ops_.front());
      ops_.pop_front();
      lock.unlock();
      op();
      lock.lock();
    }
  }

  std::string id_;
  std::uint64_t memory_;
  std::shared_ptr<PinLog> pin_log_ = std::make_shared<PinLog>();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> ops_;
  bool stop_ = false;
  std::thread thread_;
};

/// A runtime with `devices` emulated devices ("emu:0", ...) besides its CPU workers.
inline std::unique_ptr<Runtime> make_emulated_runtime(RuntimeOptions options, int devices = 1) {
  std::vector<std::unique_ptr<runtime::DeviceDriver>> drivers;
  for (int i = 0; i < devices; ++i)
    drivers.push_back(std::make_unique<EmulatedDevice>("emu:" + std::to_string(i)));
  return detail::RuntimeAccess::make(std::move(options), std::move(drivers));
}

}  // namespace conveyor::test
