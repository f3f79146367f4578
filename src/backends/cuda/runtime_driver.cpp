// The task runtime's driver for a CUDA device: replicas are cudaMalloc blocks; the lane is one
// non-blocking stream (copies and kernels of the tasks in flight); completion comes from a host
// function enqueued on the stream (cudaLaunchHostFunc), so no thread polls; copies out for other
// threads go through a second stream. Peer copies (cudaMemcpyPeerAsync) where the devices allow.
// Large registered host data is page-locked in place (pin_host), so copies run at link speed.
#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "check.hpp"
#include "conveyor/error.hpp"
#include "cuda_device.hpp"
#include "memory.hpp"
#include "runtime/device_driver.hpp"

namespace conveyor::cuda {
namespace {

using runtime::HostRegion;
using runtime::TimedOp;

class CudaDriver final : public runtime::DeviceDriver {
 public:
  CudaDriver(CudaDevice& device, const runtime::DriverConfig& config)
      : ordinal_(device.ordinal()),
        id_(device.info().id),
        memory_(device.info().memory_bytes),
        config_(config) {
    use_device(ordinal_);
    lane_ = make_stream();
    out_ = make_stream();
    if (config_.trace) {
      reference_ = make_event(true);
      CONVEYOR_CUDA_CHECK(cudaEventRecord(reference_.get(), lane_.get()));
      CONVEYOR_CUDA_CHECK(cudaEventSynchronize(reference_.get()));
      reference_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                                config_.epoch)
                          .count();
    }
  }

  ~CudaDriver() override {
    cudaSetDevice(ordinal_);
    cudaStreamSynchronize(lane_.get());
    cudaStreamSynchronize(out_.get());
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  const std::string& id() const override { return id_; }
  std::uint64_t memory_bytes() const override { return memory_; }
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
    Timed* t = begin(TimedOp::Kind::H2D, {});
    copy_2d(dst, src.width, src.ptr, src.pitch, src, cudaMemcpyHostToDevice, lane_.get());
    end(t);
  }
  void enqueue_d2h(const HostRegion& dst, const void* src) override {
    Timed* t = begin(TimedOp::Kind::D2H, {});
    copy_2d(dst.ptr, dst.pitch, src, dst.width, dst, cudaMemcpyDeviceToHost, lane_.get());
    end(t);
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

  void launch(const Codelet::Impl& codelet, TaskContext& ctx,
              std::string_view trace_name) override {
    use_device(ordinal_);
    ctx.stream_ = lane_.get();
    ctx.kernel_ = nullptr;
    Timed* t = begin(TimedOp::Kind::Task, trace_name);
    codelet.cuda(ctx);
    CONVEYOR_CUDA_CHECK(cudaGetLastError());  // a bad launch configuration shows here
    end(t);
  }

  void notify(runtime::DoneCallback done, void* user) override {
    Pending* p = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (free_.empty()) {
        pending_.push_back(std::make_unique<Pending>());
        free_.push_back(pending_.back().get());
      }
      p = free_.back();
      free_.pop_back();
    }
    p->driver = this;
    p->done = done;
    p->user = user;
    CONVEYOR_CUDA_CHECK(cudaLaunchHostFunc(lane_.get(), &CudaDriver::on_complete, p));
  }

  void drain_trace(std::vector<TimedOp>& out) override {
    while (!timed_.empty()) {
      Timed& t = timed_.front();
      if (cudaEventQuery(t.stop.get()) != cudaSuccess) break;
      float start_ms = 0, stop_ms = 0;
      if (cudaEventElapsedTime(&start_ms, reference_.get(), t.start.get()) == cudaSuccess &&
          cudaEventElapsedTime(&stop_ms, reference_.get(), t.stop.get()) == cudaSuccess)
        out.push_back(
            {t.kind, t.name, reference_us_ + start_ms * 1e3, reference_us_ + stop_ms * 1e3});
      timed_.pop_front();
    }
  }

  void copy_to_host(const HostRegion& dst, const void* src) override {
    use_device(ordinal_);
    copy_2d(dst.ptr, dst.pitch, src, dst.width, dst, cudaMemcpyDeviceToHost, out_.get());
    CONVEYOR_CUDA_CHECK(cudaStreamSynchronize(out_.get()));
  }

 private:
  struct Pending {
    CudaDriver* driver = nullptr;
    runtime::DoneCallback done = nullptr;
    void* user = nullptr;
  };
  struct Timed {
    TimedOp::Kind kind;
    std::string name;
    Event start, stop;
  };

  // Host functions must not call CUDA; this one only hands the completion to the runtime.
  static void CUDART_CB on_complete(void* user) {
    auto* p = static_cast<Pending*>(user);
    runtime::DoneCallback done = p->done;
    void* target = p->user;
    {
      std::lock_guard lock(p->driver->mutex_);
      p->driver->free_.push_back(p);
    }
    done(target, nullptr);
  }

  static void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                      const HostRegion& shape, cudaMemcpyKind kind, cudaStream_t stream) {
    if (shape.contiguous())
      CONVEYOR_CUDA_CHECK(cudaMemcpyAsync(dst, src, shape.bytes(), kind, stream));
    else
      CONVEYOR_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, shape.width,
                                            shape.height, kind, stream));
  }

  Timed* begin(TimedOp::Kind kind, std::string_view name) {
    if (!config_.trace) return nullptr;
    timed_.push_back({kind, std::string(name), make_event(true), make_event(true)});
    CONVEYOR_CUDA_CHECK(cudaEventRecord(timed_.back().start.get(), lane_.get()));
    return &timed_.back();
  }
  void end(Timed* t) {
    if (t) CONVEYOR_CUDA_CHECK(cudaEventRecord(t->stop.get(), lane_.get()));
  }

  int ordinal_;
  std::string id_;
  std::uint64_t memory_;
  runtime::DriverConfig config_;
  Stream lane_;
  Stream out_;
  Event reference_;
  double reference_us_ = 0;
  std::deque<Timed> timed_;  // driver thread only

  std::mutex mutex_;  // guards the host-function records
  std::vector<std::unique_ptr<Pending>> pending_;
  std::vector<Pending*> free_;
};

}  // namespace

std::unique_ptr<runtime::DeviceDriver> CudaDevice::make_driver(
    const runtime::DriverConfig& config) {
  return std::make_unique<CudaDriver>(*this, config);
}

}  // namespace conveyor::cuda
