// The task runtime's driver for a CUDA device: replicas are cudaMalloc blocks; the lane is one
// non-blocking stream (kernels and copies back of the tasks in flight). Copies in go on a stream
// of their own, so that the next tasks' tiles cross the link while the current kernel runs; the
// lane waits for them (an event) before the kernel that needs them. That is safe because a
// replica is only overwritten once no queued task can still read other contents from it: the
// runtime orders writers after readers, and pins keep in-use blocks from eviction (a naive-mode
// re-copy of data two queued readers share writes the same bytes). Completion comes from an event
// recorded on the stream, which a waiter thread sleeps on (blocking-sync events: nothing polls).
// A host function on the stream (cudaLaunchHostFunc) would stall the stream until the callback
// has run, about 50 us per task on the H100 VM we measured; an event does not stall it. Copies out
// for other threads go through a second stream, write-backs of evicted replicas through a third
// (the device-to-host copy engine, beside the kernels: nothing on the lane uses an evicted replica
// any more, see DeviceDriver::enqueue_write_back). Peer copies (cudaMemcpyPeerAsync) where the
// devices allow.
// Large registered host data is page-locked in place (pin_host), so copies run at link speed.
#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "cuda_device.hpp"
#include "device/driver.hpp"
#include "memory.hpp"

namespace conveyor::backend::cuda {
namespace {

using device::HostRegion;
using device::TimedOp;

class CudaDriver final : public device::DeviceDriver {
 public:
  CudaDriver(CudaDevice& device, const device::DriverConfig& config)
      : ordinal_(device.ordinal()),
        id_(device.info().id),
        memory_(device.info().memory_bytes),
        config_(config) {
    use_device(ordinal_);
    lane_ = make_stream();
    h2d_ = make_stream();
    copied_in_ = make_event(false);
    out_ = make_stream();
    back_ = make_stream();
    if (config_.trace || config_.time_tasks) {
      reference_ = make_event(true);
      CONVEYOR_CUDA_CHECK(cudaEventRecord(reference_.get(), lane_.get()));
      CONVEYOR_CUDA_CHECK(cudaEventSynchronize(reference_.get()));
      reference_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                                config_.epoch)
                          .count();
    }
    waiter_ = std::thread([this] { wait_loop(); });
    round_trip_s_ = probe_round_trip();
  }

  ~CudaDriver() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    waiter_.join();  // after the completions still pending
    cudaSetDevice(ordinal_);
    cudaStreamSynchronize(h2d_.get());
    cudaStreamSynchronize(lane_.get());
    cudaStreamSynchronize(out_.get());
    cudaStreamSynchronize(back_.get());
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::string& id() const override { return id_; }
  std::uint64_t memory_bytes() const override { return memory_; }
  double completion_seconds() const override { return round_trip_s_; }
  int ordinal() const { return ordinal_; }

  void* allocate(std::size_t bytes) override {
    use_device(ordinal_);
    void* p = nullptr;
    CONVEYOR_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void deallocate(void* block) noexcept override {
    cudaSetDevice(ordinal_);
    cudaFree(block);
  }

  bool pin_host(void* ptr, std::size_t bytes) override {
    use_device(ordinal_);
    // Portable: the copies of every CUDA device see it as pinned, not only this one's.
    if (cudaHostRegister(ptr, bytes, cudaHostRegisterPortable) == cudaSuccess) return true;
    cudaGetLastError();  // already registered elsewhere or refused: copies stay pageable
    return false;
  }
  void unpin_host(void* ptr) noexcept override {
    cudaSetDevice(ordinal_);
    cudaHostUnregister(ptr);
  }

  void enqueue_h2d(void* dst, const HostRegion& src) override {
    Timed* t = begin(TimedOp::Kind::H2D, {}, h2d_.get());
    copy_2d(dst, src.width, src.ptr, src.pitch, src, cudaMemcpyHostToDevice, h2d_.get());
    end(t, h2d_.get());
    CONVEYOR_CUDA_CHECK(cudaEventRecord(copied_in_.get(), h2d_.get()));
    copies_pending_ = true;
  }
  void enqueue_d2h(const HostRegion& dst, const void* src) override {
    Timed* t = begin(TimedOp::Kind::D2H, {});
    copy_2d(dst.ptr, dst.pitch, src, dst.width, dst, cudaMemcpyDeviceToHost, lane_.get());
    end(t);
  }

  void enqueue_write_back(const HostRegion& dst, const void* src, device::DoneCallback done,
                          void* user) override {
    use_device(ordinal_);
    Timed* t = begin(TimedOp::Kind::D2H, {}, back_.get());
    copy_2d(dst.ptr, dst.pitch, src, dst.width, dst, cudaMemcpyDeviceToHost, back_.get());
    end(t, back_.get());
    complete_after(back_.get(), done, user);
  }

  bool can_peer_from(const DeviceDriver& other) const override {
    const auto* peer = dynamic_cast<const CudaDriver*>(&other);
    if (!peer || peer->ordinal_ == ordinal_) return false;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, ordinal_, peer->ordinal_) != cudaSuccess) return false;
    return can != 0;
  }
  void enqueue_peer(void* dst, const DeviceDriver& src_driver, const void* src,
                    std::size_t bytes) override {
    const auto& peer = dynamic_cast<const CudaDriver&>(src_driver);
    use_device(ordinal_);
    Timed* t = begin(TimedOp::Kind::D2D, {});
    CONVEYOR_CUDA_CHECK(cudaMemcpyPeerAsync(dst, ordinal_, src, peer.ordinal_, bytes, lane_.get()));
    end(t);
  }

  void launch(const device::CodeletImpl& codelet, TaskContext& ctx) override {
    use_device(ordinal_);
    join_copies_in();
    device::TaskContextAccess::set_stream(ctx, lane_.get());
    Timed* t = begin(TimedOp::Kind::Task, codelet.name, nullptr, ctx.task_id());
    codelet.fn(DeviceKind::Cuda)(ctx);
    CONVEYOR_CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows here
    end(t);
  }

  void notify(device::DoneCallback done, void* user) override {
    join_copies_in();  // "all work enqueued so far" includes copies with no kernel after them
    complete_after(lane_.get(), done, user);
  }

  // The waiter thread calls `done` once `stream` has run what is enqueued on it now.
  void complete_after(cudaStream_t stream, device::DoneCallback done, void* user) {
    Event event;
    {
      std::lock_guard lock(mutex_);
      if (!free_events_.empty()) {
        event = std::move(free_events_.back());
        free_events_.pop_back();
      }
    }
    if (!event) event = make_blocking_event();
    CONVEYOR_CUDA_CHECK(cudaEventRecord(event.get(), stream));
    {
      std::lock_guard lock(mutex_);
      waiting_.push_back({std::move(event), done, user});
    }
    wake_.notify_one();
  }

  void drain_trace(std::vector<TimedOp>& out) override {
    while (!timed_.empty()) {
      Timed& t = timed_.front();
      if (cudaEventQuery(t.stop.get()) != cudaSuccess) break;
      float start_ms = 0, stop_ms = 0;
      if (cudaEventElapsedTime(&start_ms, reference_.get(), t.start.get()) == cudaSuccess &&
          cudaEventElapsedTime(&stop_ms, reference_.get(), t.stop.get()) == cudaSuccess)
        out.push_back({t.kind, t.name, t.task, reference_us_ + start_ms * 1e3,
                       reference_us_ + stop_ms * 1e3});
      timed_.pop_front();
    }
  }

  void copy_to_host(const HostRegion& dst, const void* src) override {
    use_device(ordinal_);
    copy_2d(dst.ptr, dst.pitch, src, dst.width, dst, cudaMemcpyDeviceToHost, out_.get());
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(out_.get()));
  }

  // Device memory the user allocated (cudaMalloc, CuPy, PyTorch): used in place when it is this
  // device's (or managed memory that this device may use). Its size cannot be checked here.
  void* adopt_external(void* ptr, std::size_t /*bytes*/) override {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it
      throw UsageError(fmt::format("{}: {} is not a CUDA pointer", id_, ptr));
    }
    switch (attributes.type) {
      case cudaMemoryTypeDevice:
      case cudaMemoryTypeManaged:
        if (attributes.device == ordinal_) {
          // Work the owner queued on streams of its own (a CuPy or PyTorch copy still running)
          // must land before the lanes, which do not wait for those streams, touch the memory.
          // Registration is rare: one device-wide synchronisation.
          use_device(ordinal_);
          CONVEYOR_CUDA_CHECK(cudaDeviceSynchronize());
          return ptr;
        }
        throw UsageError(fmt::format("{}: {} is memory of cuda:{}, not of this device", id_, ptr,
                                     attributes.device));
      default:
        throw UsageError(fmt::format(
            "{}: {} is host memory, not device memory (register host memory with register_bytes)",
            id_, ptr));
    }
  }
  void copy_from_host(void* dst, const HostRegion& src) override {
    use_device(ordinal_);
    copy_2d(dst, src.width, src.ptr, src.pitch, src, cudaMemcpyHostToDevice, out_.get());
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(out_.get()));
  }
  void copy_device_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      std::size_t width, std::size_t height) override {
    use_device(ordinal_);
    CONVEYOR_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, height,
                                          cudaMemcpyDeviceToDevice, out_.get()));
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(out_.get()));
  }

 private:
  struct Waiting {
    Event event;
    device::DoneCallback done = nullptr;
    void* user = nullptr;
  };
  struct Timed {
    TimedOp::Kind kind;
    std::string name;
    TaskId task = 0;
    Event start, stop;
  };

  static Event make_blocking_event() {
    cudaEvent_t e = nullptr;
    CONVEYOR_CUDA_CHECK(
        cudaEventCreateWithFlags(&e, cudaEventBlockingSync | cudaEventDisableTiming));
    return Event(e);
  }

  // The waiter thread: completions in lane order. cudaEventSynchronize on a blocking-sync event
  // sleeps until the GPU reaches it, and returns the error of a failed kernel or copy before it.
  void wait_loop() {
    cudaSetDevice(ordinal_);
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // stop_, nothing pending
      Waiting w = std::move(waiting_.front());
      waiting_.pop_front();
      lock.unlock();
      cudaError_t status = cudaEventSynchronize(w.event.get());
      std::string error;
      if (status != cudaSuccess) error = fmt::format("{}: {}", id_, cudaGetErrorString(status));
      w.done(w.user, error.empty() ? nullptr : error.c_str());
      lock.lock();
      free_events_.push_back(std::move(w.event));
    }
  }

  static void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      const HostRegion& shape, cudaMemcpyKind kind, cudaStream_t stream) {
    if (shape.contiguous())
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, shape.bytes(), kind, stream));
    else
      CONVEYOR_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, shape.width,
                                            shape.height, kind, stream));
  }

  // The lane waits for the copies in enqueued so far (once per batch of copies).
  void join_copies_in() {
    if (!copies_pending_) return;
    CONVEYOR_CUDA_CHECK(cudaStreamWaitEvent(lane_.get(), copied_in_.get(), 0));
    copies_pending_ = false;
  }

  Timed* begin(TimedOp::Kind kind, std::string_view name, cudaStream_t stream = nullptr,
               TaskId task = 0) {
    if (!config_.trace && !(config_.time_tasks && kind == TimedOp::Kind::Task)) return nullptr;
    timed_.push_back({kind, std::string(name), task, make_event(true), make_event(true)});
    CONVEYOR_CUDA_CHECK(cudaEventRecord(timed_.back().start.get(), stream ? stream : lane_.get()));
    return &timed_.back();
  }
  void end(Timed* t, cudaStream_t stream = nullptr) {
    if (t) CONVEYOR_CUDA_CHECK(cudaEventRecord(t->stop.get(), stream ? stream : lane_.get()));
  }

  int ordinal_;
  std::string id_;
  std::uint64_t memory_;
  device::DriverConfig config_;
  Stream lane_;
  Stream h2d_;                   // copies in
  Event copied_in_;              // the last copy in enqueued on h2d_
  bool copies_pending_ = false;  // copies in the lane has not waited for yet (driver thread only)
  Stream out_;
  Stream back_;  // write-backs
  Event reference_;
  double reference_us_ = 0;
  double round_trip_s_ = -1;
  std::deque<Timed> timed_;  // driver thread only

  std::mutex mutex_;  // guards the completion queue and the event pool
  std::condition_variable wake_;
  std::deque<Waiting> waiting_;
  std::vector<Event> free_events_;
  bool stop_ = false;
  std::thread waiter_;  // last: started once everything above exists
};

}  // namespace

std::unique_ptr<device::DeviceDriver> CudaDevice::make_driver(const device::DriverConfig& config) {
  return std::make_unique<CudaDriver>(*this, config);
}

}  // namespace conveyor::backend::cuda
