#include "device/simulated/simulated_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "conveyor/error.hpp"

namespace conveyor::device::simulated {
namespace {

void copy_2d(char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
             const HostRegion& shape) {
  for (std::size_t c = 0; c < shape.height; ++c)
    std::memcpy(dst + c * dst_pitch, src + c * src_pitch, shape.width);
}

// Fake device addresses: device d's blocks lie in [(d + 1) << 44, (d + 2) << 44), never mapped,
// so that a stray dereference faults instead of reading something plausible.
constexpr int kFakeShift = 44;
constexpr std::size_t kFakeAlign = 256;

}  // namespace

SimulatedDevice::SimulatedDevice(std::shared_ptr<Platform> platform, int index, DriverConfig config)
    : platform_(std::move(platform)),
      index_(index),
      spec_(platform_->spec().devices[index]),
      config_(config),
      next_fake_(static_cast<std::uintptr_t>(index + 1) << kFakeShift) {}

SimulatedDevice::~SimulatedDevice() {
  for (void* b : retired_) std::free(b);
  if (platform_->run_kernels())
    for (auto& [block, bytes] : blocks_) std::free(const_cast<void*>(block));
}

void* SimulatedDevice::allocate(std::size_t bytes) {
  void* block = nullptr;
  if (platform_->run_kernels()) {
    block = std::calloc(bytes ? bytes : 1, 1);
    if (!block) throw DeviceError(spec_.id + ": host memory for a simulated block ran out");
  }
  std::lock_guard lock(blocks_mutex_);
  if (!block) {
    block = reinterpret_cast<void*>(next_fake_);
    next_fake_ += (bytes + kFakeAlign - 1) / kFakeAlign * kFakeAlign + kFakeAlign;
  }
  blocks_[block] = bytes;
  // A real allocation (cudaMalloc) keeps the calling thread busy; cached blocks never get here.
  if (spec_.alloc_us > 0) {
    VirtualClock& clock = platform_->clock();
    clock.owe_until(clock.thread_now_s() + spec_.alloc_us * 1e-6);
  }
  return block;
}

void SimulatedDevice::busy_until(double end_s) {
  double seen = drained_s_.load(std::memory_order_relaxed);
  while (seen < end_s && !drained_s_.compare_exchange_weak(seen, end_s)) {
  }
}

void SimulatedDevice::deallocate(void* block) noexcept {
  // cudaFree synchronises the device: the freeing thread waits for everything enqueued.
  if (spec_.free_syncs) platform_->clock().owe_until(drained_s_.load());
  std::lock_guard lock(blocks_mutex_);
  blocks_.erase(block);
  if (platform_->run_kernels()) retired_.push_back(block);
}

bool SimulatedDevice::owns(const void* block) const {
  std::lock_guard lock(blocks_mutex_);
  return blocks_.count(block) > 0;
}

double SimulatedDevice::lane_ready() const {
  return std::max(lane_free_s_, platform_->clock().thread_now_s());
}

void SimulatedDevice::record(TimedOp::Kind kind, const std::string& name, TaskId task, double start,
                             double end) {
  if (config_.trace || (config_.time_tasks && kind == TimedOp::Kind::Task))
    timed_.push_back({kind, name, task, start * 1e6, end * 1e6});
}

void SimulatedDevice::enqueue_h2d(void* dst, const HostRegion& src) {
  // With a stream of its own the copy waits only for the copies in before it; the kernels wait
  // for it (launch, notify).
  const double ready = spec_.copy_in_stream
                           ? std::max(copy_in_free_s_, platform_->clock().thread_now_s())
                           : lane_ready();
  auto [start, end] =
      platform_->transfer(Platform::host_node(), Platform::device_node(index_), src.bytes(), ready);
  if (spec_.copy_in_stream) {
    copy_in_free_s_ = end;
    copies_in_end_s_ = std::max(copies_in_end_s_, end);
  } else {
    lane_free_s_ = end;
  }
  busy_until(end);
  record(TimedOp::Kind::H2D, {}, 0, start, end);
  if (platform_->run_kernels())
    platform_->clock().at(
        end, [dst, src] { copy_2d(static_cast<char*>(dst), src.width, src.ptr, src.pitch, src); });
}

void SimulatedDevice::enqueue_d2h(const HostRegion& dst, const void* src) {
  auto [start, end] = platform_->transfer(Platform::device_node(index_), Platform::host_node(),
                                          dst.bytes(), lane_ready());
  lane_free_s_ = end;
  busy_until(end);
  record(TimedOp::Kind::D2H, {}, 0, start, end);
  if (platform_->run_kernels())
    platform_->clock().at(end, [dst, src] {
      copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst);
    });
}

void SimulatedDevice::enqueue_write_back(const HostRegion& dst, const void* src, DoneCallback done,
                                         void* user) {
  // Off the lane (DeviceDriver::enqueue_write_back): on the device-to-host link from now, beside
  // the kernels.
  VirtualClock& clock = platform_->clock();
  auto [start, end] = platform_->transfer(Platform::device_node(index_), Platform::host_node(),
                                          dst.bytes(), clock.thread_now_s());
  busy_until(end);
  record(TimedOp::Kind::D2H, {}, 0, start, end);
  bool run = platform_->run_kernels();
  // The host learns of it as of any completion: complete_us later.
  clock.at(end + spec_.complete_us * 1e-6, [dst, src, done, user, run] {
    if (run) copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst);
    done(user, nullptr);
  });
}

bool SimulatedDevice::can_peer_from(const DeviceDriver& other) const {
  const auto* peer = dynamic_cast<const SimulatedDevice*>(&other);
  return peer && peer != this && peer->platform_ == platform_ &&
         platform_->has_route(Platform::device_node(peer->index_), Platform::device_node(index_));
}

void SimulatedDevice::enqueue_peer(void* dst, const DeviceDriver& src_driver, const void* src,
                                   std::size_t bytes) {
  const auto& peer = dynamic_cast<const SimulatedDevice&>(src_driver);
  auto [start, end] = platform_->transfer(Platform::device_node(peer.index_),
                                          Platform::device_node(index_), bytes, lane_ready());
  lane_free_s_ = end;
  busy_until(end);
  record(TimedOp::Kind::D2D, {}, 0, start, end);
  if (platform_->run_kernels())
    platform_->clock().at(end, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
}

void SimulatedDevice::launch(const device::CodeletImpl& codelet, TaskContext& ctx) {
  device::TaskContextAccess::set_stream(ctx, this);
  double start = std::max(lane_ready(), copies_in_end_s_);
  double end = start + spec_.compute.seconds(
                           codelet, ctx, "platform " + platform_->spec().name + ", " + spec_.id);
  // peer-direct: a buffer in a peer's memory is read over the link while the kernel runs; the
  // kernel ends when both its arithmetic and its remote reads are done.
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const Buffer& b = ctx.buffer(i);
    if (owns(b.ptr)) continue;
    for (int d = 0; d < platform_->devices(); ++d) {
      if (d == index_ || !platform_->device(d)->owns(b.ptr)) continue;
      std::size_t bytes = b.rows * b.cols * b.elem_size;
      auto [rs, re] = platform_->transfer(Platform::device_node(d), Platform::device_node(index_),
                                          bytes, start, spec_.remote_read_factor);
      record(TimedOp::Kind::D2D, {}, 0, rs, re);
      remote_read_bytes_ += bytes;
      end = std::max(end, re);
      break;
    }
  }
  lane_free_s_ = end;
  busy_until(end);
  record(TimedOp::Kind::Task, codelet.name, ctx.task_id(), start, end);
  if (!platform_->run_kernels()) return;
  if (!codelet.has(DeviceKind::Cpu))
    throw UsageError(fmt::format("codelet '{}' has no CPU implementation to run on simulated {}",
                                 codelet.name, spec_.id));
  TaskContext copy = ctx;
  const device::CodeletImpl* c = &codelet;
  platform_->clock().at(end, [this, c, copy] {
    try {
      c->fn(DeviceKind::Cpu)(copy);
    } catch (const std::exception& e) {
      std::lock_guard lock(error_mutex_);
      if (kernel_error_.empty()) kernel_error_ = e.what();
    }
  });
}

void SimulatedDevice::notify(DoneCallback done, void* user) {
  // Everything enqueued so far, copies in included, then the host's wake-up on it (complete_us):
  // only then does the runtime complete the task and release its successors.
  const double end = std::max({lane_free_s_, copies_in_end_s_, platform_->clock().thread_now_s()});
  platform_->clock().at(end + spec_.complete_us * 1e-6, [this, done, user] {
    std::string error;
    {
      std::lock_guard lock(error_mutex_);
      error.swap(kernel_error_);
    }
    done(user, error.empty() ? nullptr : error.c_str());
  });
}

void SimulatedDevice::drain_trace(std::vector<TimedOp>& out) {
  for (auto& op : timed_) out.push_back(std::move(op));
  timed_.clear();
}

void SimulatedDevice::copy_to_host(const HostRegion& dst, const void* src) {
  // Called under the data's lock: the time is owed, not waited (VirtualClock::owe_until).
  VirtualClock& clock = platform_->clock();
  auto [start, end] = platform_->transfer(Platform::device_node(index_), Platform::host_node(),
                                          dst.bytes(), clock.thread_now_s());
  clock.owe_until(end);
  if (platform_->run_kernels())
    copy_2d(dst.ptr, dst.pitch, static_cast<const char*>(src), dst.width, dst);
}

OpenedPlatform open_platform(const std::string& path, int devices, bool run_kernels,
                             const DriverConfig& config, std::shared_ptr<VirtualClock> clock) {
  auto platform =
      std::make_shared<Platform>(read_platform(path), devices, run_kernels, std::move(clock));
  OpenedPlatform opened;
  opened.platform = platform;
  opened.host_cores = platform->spec().host_cores;
  for (int d = 0; d < platform->devices(); ++d) {
    auto driver = std::make_unique<SimulatedDevice>(platform, d, config);
    platform->attach(d, driver.get());
    opened.drivers.push_back(std::move(driver));
  }
  return opened;
}

}  // namespace conveyor::device::simulated
