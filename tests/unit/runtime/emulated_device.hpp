#pragma once
// An emulated device for runtime tests: memory from the heap, a lane run in order by its own
// thread (so copies and kernels really are asynchronous), and the CUDA kind, so that codelets' cuda
// implementations run on it with host pointers. Runs anywhere, under the sanitizers too. It can
// fail allocations and copies on demand (see the fault members below), and it can run its lane
// inline (`inline_lane`): every operation, completions included, runs at once on the thread that
// enqueues it, as PoCL calls an event's callback at once when the command has already finished, so
// that tests meet that case on every run instead of rarely. Or it can keep only the order that
// matters for the data (`reorder`): an operation waits for the earlier ones that use one of its
// blocks (and a notify for all earlier ones), as on a device with several streams that wait on
// each other's events, and otherwise the newest operation that may run goes first. A task
// enqueued behind its producer (run-ahead) then runs before it unless its wait on the producer's
// block holds it back.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "conveyor/error.hpp"
#include "device/driver.hpp"
#include "runtime/testing.hpp"

namespace conveyor::test {

/// What an emulated device was asked to page-lock; shared so that a test can read it after the
/// runtime (and the device) are gone.
struct PinLog {
  std::mutex mutex;
  std::map<const void*, std::size_t> pinned;  ///< ranges pinned now
  int pins = 0, unpins = 0;
};

class EmulatedDevice final : public device::DeviceDriver {
 public:
  explicit EmulatedDevice(std::string id, std::uint64_t memory = 1ull << 30,
                          bool inline_lane = false, bool reorder = false)
      : id_(std::move(id)),
        memory_(memory),
        inline_(inline_lane),
        reorder_(reorder && !inline_lane),
        thread_([this] { run(); }) {}
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
    const int attempt = attempts_.fetch_add(1);
    if (attempt == fail_allocation_at_ ||
        (fail_allocations_from_ >= 0 && attempt >= fail_allocations_from_))
      throw DeviceError(id_ + ": emulated allocation failure");
    allocations_++;
    return std::calloc(bytes, 1);
  }
  // On the lane, as clReleaseMemObject releases only once the commands using the block are done
  // (cudaFree waits for the device): a copy still queued into it (a prefetch whose replica was
  // evicted before it landed) must not write into freed memory.
  void deallocate(void* block) noexcept override {
    frees_++;
    push([block] { std::free(block); }, {block});
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

  void enqueue_h2d(void* dst, const device::HostRegion& src) override {
    bool fail = failing_copy();
    bool fail_once = h2d_copies_.fetch_add(1) == fail_h2d_once_at_;
    push(
        [this, dst, src, fail, fail_once] {
          if (fail_once) {
            std::memset(dst, kGarbage, src.width * src.height);
            copy_2d(static_cast<char*>(dst), src.width, src.ptr, src.pitch, half(src));
            std::lock_guard lock(mutex_);
            if (error_.empty()) error_ = id_ + ": emulated one-off copy failure";
            return;
          }
          copy_2d(static_cast<char*>(dst), src.width, src.ptr, src.pitch, fail ? half(src) : src);
          if (fail) break_lane();
        },
        {dst});
  }
  void enqueue_d2h(const device::HostRegion& dst, const void* src) override {
    bool fail = failing_copy();
    push(
        [this, dst, src, fail] {
          copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width,
                  fail ? half(dst) : dst);
          if (fail) break_lane();
        },
        {src});
  }
  // On the lane (one engine), but a kernel's failure stays for the task's own notify.
  void enqueue_write_back(const device::HostRegion& dst, const void* src, device::DoneCallback done,
                          void* user) override {
    bool fail = failing_copy();
    push(
        [this, dst, src, done, user, fail] {
          copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width,
                  fail ? half(dst) : dst);
          if (fail) break_lane();
          std::string error = lane_error();
          done(user, error.empty() ? nullptr : error.c_str());
        },
        {src});
  }
  // Emulated devices share the host's address space, so they "peer copy" with each other.
  bool can_peer_from(const device::DeviceDriver& other) const override {
    return dynamic_cast<const EmulatedDevice*>(&other) != nullptr && &other != this;
  }
  // A copy out of a broken device lands in part too, and fails the next task here to report it
  // (this device itself stays well).
  void enqueue_peer(void* dst, const device::DeviceDriver& from, const void* src,
                    std::size_t bytes) override {
    bool fail = failing_copy();
    const auto& source = static_cast<const EmulatedDevice&>(from);
    push(
        [this, dst, src, bytes, fail, &source] {
          const bool source_broken = source.broken_;
          std::memcpy(dst, src, fail || source_broken ? bytes / 2 : bytes);
          if (fail) break_lane();
          if (!source_broken) return;
          std::lock_guard lock(mutex_);
          if (error_.empty()) error_ = source.lane_error();
        },
        {dst});
  }
  void launch(const device::CodeletImpl& codelet, TaskContext& ctx) override {
    device::TaskContextAccess::set_stream(ctx, this);
    TaskContext copy = ctx;
    const device::CodeletImpl* c = &codelet;
    std::vector<const void*> blocks;
    for (std::size_t i = 0; i < ctx.size(); ++i) blocks.push_back(ctx.buffer(i).ptr);
    push(
        [this, c, copy] {
          double start = now_us();
          std::string error;
          try {
            c->fn(DeviceKind::Cuda)(copy);
          } catch (const std::exception& e) {  // a failed kernel: reported by the next notify
            error = e.what();
          }
          std::lock_guard lock(mutex_);
          if (error_.empty()) error_ = error;
          timed_.push_back({device::TimedOp::Kind::Task, c->name, copy.task_id(), start, now_us()});
        },
        std::move(blocks));
  }
  void notify(device::DoneCallback done, void* user) override {
    push(
        [this, done, user] {
          std::string error = lane_error();
          {
            std::lock_guard lock(mutex_);
            if (error.empty()) error.swap(error_);
            error_.clear();
          }
          done(user, error.empty() ? nullptr : error.c_str());
        },
        {}, Wait::AllEarlier);
  }
  /// Task timings only (always kept): wall time of the implementation on the lane's thread.
  void drain_trace(std::vector<device::TimedOp>& out) override {
    std::lock_guard lock(mutex_);
    for (auto& op : timed_) out.push_back(std::move(op));
    timed_.clear();
  }
  void copy_to_host(const device::HostRegion& dst, const void* src) override {
    bool fail = failing_copy();
    copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, fail ? half(dst) : dst);
    if (!fail) return;
    break_lane();
    throw DeviceError(lane_error());
  }

  // Device memory handed out to a test (hand_out) is the only memory it takes as a data's home
  // (anywhere inside such a block: a tile of a larger matrix), unless adopt_any_memory_ is set.
  void* adopt_external(void* ptr, std::size_t bytes) override {
    if (adopt_any_memory_) return ptr;
    std::lock_guard lock(mutex_);
    auto it = handed_out_.upper_bound(ptr);
    const auto* p = static_cast<const std::byte*>(ptr);
    if (it == handed_out_.begin() || p >= static_cast<const std::byte*>((--it)->first) + it->second)
      throw UsageError(id_ + ": not memory of this device (hand_out gives some)");
    const std::size_t offset =
        static_cast<std::size_t>(p - static_cast<const std::byte*>(it->first));
    if (offset + bytes > it->second)
      throw UsageError(id_ + ": " + std::to_string(bytes) + " bytes registered at offset " +
                       std::to_string(offset) + " in a block of " + std::to_string(it->second));
    return ptr;
  }
  void copy_from_host(void* dst, const device::HostRegion& src) override {
    copy_2d(static_cast<char*>(dst), src.width, src.ptr, src.pitch, src);
  }
  void copy_device_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      std::size_t width, std::size_t height) override {
    device_2d_copies_++;
    if (fail_device_2d_.exchange(false)) throw DeviceError(id_ + ": emulated 2-D copy failure");
    copy_2d(static_cast<char*>(dst), dst_pitch, static_cast<const char*>(src), src_pitch,
            {nullptr, width, height, width});
  }
  /// copy_device_2d calls so far (a strided home's fill and copies back).
  int device_2d_copies() const { return device_2d_copies_.load(); }
  /// Zeroed "device memory" of this device for a test to register as a data's home
  /// (Runtime::register_device_bytes); the test keeps it, and it outlives the device.
  std::shared_ptr<std::byte[]> hand_out(std::size_t bytes) {
    auto block = std::make_shared<std::byte[]>(bytes);
    std::lock_guard lock(mutex_);
    handed_out_[block.get()] = bytes;
    return block;
  }

  /// Waits until the lane has run everything enqueued so far.
  void sync() {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    push(
        [&] {
          std::lock_guard lock(m);
          done = true;
          cv.notify_one();
        },
        {}, Wait::AllEarlier);
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
  }

  /// Holds the lane until `go` is ready: what is enqueued meanwhile has not run (a copy still on
  /// its way). Not for inline lanes.
  void hold(std::shared_future<void> go) {
    push([go] { go.wait(); }, {}, Wait::Barrier);
  }

  // Faults. Allocations (numbered from 0, counting attempts): the one numbered fail_allocation_at_
  // fails, or every one from fail_allocations_from_ on (0: all). Copies (h2d, d2h, peer, write-back
  // and copy_to_host, numbered from 0 as they are asked for): the one numbered fail_copy_at_ lands
  // only half its bytes and fails (copy_to_host throws), and the device stays broken from then on,
  // as a CUDA context does after a failed asynchronous copy: every later notify and write-back
  // reports the failure. copies_ counts the copies asked for so far.
  // A one-off fault (the device stays well): the copy into the device numbered fail_h2d_once_at_
  // (counting h2d copies only, from 0) fills its block with kGarbage, lands the first half of its
  // bytes over it and fails the next notify only (in lane order: the task whose input it was,
  // unless a prefetch ran ahead of an earlier task's notify).
  std::atomic<int> fail_allocation_at_{-1};
  std::atomic<int> fail_allocations_from_{-1};
  std::atomic<int> fail_copy_at_{-1};
  std::atomic<int> fail_h2d_once_at_{-1};
  static constexpr unsigned char kGarbage = 0xEE;
  std::atomic<int> copies_{0};
  /// Takes any memory as a data's home (its "device memory" is host memory anyway): the
  /// differential test registers its own buffers so, and checks them as it checks host data.
  std::atomic<bool> adopt_any_memory_{false};
  std::atomic<int> h2d_copies_{0};
  std::atomic<int> allocations_{0};
  std::atomic<int> frees_{0};
  std::atomic<int> device_2d_copies_{0};
  /// The next copy_device_2d throws DeviceError (once).
  std::atomic<bool> fail_device_2d_{false};

 private:
  bool failing_copy() { return copies_.fetch_add(1) == fail_copy_at_; }
  // The first half of a region: its first half of columns (or of bytes, for one column).
  static device::HostRegion half(device::HostRegion r) {
    if (r.height > 1)
      r.height /= 2;
    else
      r.width /= 2;
    return r;
  }
  void break_lane() { broken_ = true; }
  std::string lane_error() const {
    return broken_ ? id_ + ": emulated copy failure" : std::string();
  }

  static void copy_2d(char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
                      const device::HostRegion& shape) {
    for (std::size_t c = 0; c < shape.height; ++c)
      std::memcpy(dst + c * dst_pitch, src + c * src_pitch, shape.width);
  }
  // What an operation waits for under `reorder` (otherwise everything runs in the order pushed):
  // the earlier operations that use one of its blocks; all earlier ones (a notify: an event
  // recorded on every stream); or, a barrier, all earlier ones and it holds back all later ones.
  enum class Wait { Blocks, AllEarlier, Barrier };
  struct Op {
    std::function<void()> fn;
    std::vector<const void*> blocks;
    Wait wait = Wait::Blocks;
  };
  void push(std::function<void()> fn, std::vector<const void*> blocks = {},
            Wait wait = Wait::Blocks) {
    if (inline_) {  // only the driver thread enqueues: in order without a lock
      fn();
      return;
    }
    {
      std::lock_guard lock(mutex_);
      ops_.push_back({std::move(fn), std::move(blocks), wait});
    }
    cv_.notify_one();
  }
  // Under mutex_: whether ops_[i] may run now (reorder), the earlier ones not having run yet.
  bool may_run(std::size_t i) const {
    const Op& op = ops_[i];
    for (std::size_t j = 0; j < i; ++j) {
      const Op& earlier = ops_[j];
      if (op.wait != Wait::Blocks || earlier.wait == Wait::Barrier) return false;
      for (const void* b : op.blocks)  // the wait on the events of the block's earlier users
        if (std::find(earlier.blocks.begin(), earlier.blocks.end(), b) != earlier.blocks.end())
          return false;
    }
    return true;
  }
  // Under mutex_: the operation to run next: the first, or under `reorder` the newest that may.
  std::size_t next_op() const {
    if (reorder_)
      for (std::size_t i = ops_.size(); i-- > 1;)
        if (may_run(i)) return i;
    return 0;
  }
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !ops_.empty(); });
      if (ops_.empty()) return;
      const std::size_t i = next_op();
      auto op = std::move(ops_[i].fn);
      ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(i));
      lock.unlock();
      op();
      lock.lock();
    }
  }

  static double now_us() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  std::string id_;
  std::uint64_t memory_;
  std::vector<device::TimedOp> timed_;  // guarded by mutex_
  std::string error_;             // a kernel's or a one-off copy's failure not yet reported; mutex_
  std::atomic<int> attempts_{0};  // allocations asked for
  std::atomic<bool> broken_{false};  // a copy failed: the lane reports it from then on
  std::shared_ptr<PinLog> pin_log_ = std::make_shared<PinLog>();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Op> ops_;                             // not run yet, in the order pushed
  std::map<const void*, std::size_t> handed_out_;  // hand_out's blocks and sizes; mutex_
  bool stop_ = false;
  const bool inline_;
  const bool reorder_;
  std::thread thread_;
};

/// A runtime with `devices` emulated devices ("emu:0", ...) besides its CPU workers.
/// Model schedulers keep their models in memory unless the test names a file: tests never touch
/// the user's cache.
/// With `inline_lanes`, their lanes run inline (see EmulatedDevice).
/// With `reorder`, they keep only the order the data needs (see EmulatedDevice).
/// With `adopt_any_memory`, they take any memory as a data's home (see EmulatedDevice).
inline std::unique_ptr<Runtime> make_emulated_runtime(RuntimeOptions options, int devices = 1,
                                                      bool inline_lanes = false,
                                                      bool reorder = false,
                                                      bool adopt_any_memory = false) {
  if (options.perf_models.empty()) options.perf_models = "none";
  std::vector<std::unique_ptr<device::DeviceDriver>> drivers;
  for (int i = 0; i < devices; ++i) {
    auto device = std::make_unique<EmulatedDevice>("emu:" + std::to_string(i), 1ull << 30,
                                                   inline_lanes, reorder);
    device->adopt_any_memory_ = adopt_any_memory;
    drivers.push_back(std::move(device));
  }
  return runtime::RuntimeAccess::make(std::move(options), std::move(drivers));
}

}  // namespace conveyor::test
