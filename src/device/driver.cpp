#include "device/driver.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "conveyor/error.hpp"

namespace conveyor {

namespace device {

std::unique_ptr<DeviceDriver> make_driver(Device& device, const DriverConfig& config) {
  if (auto* source = dynamic_cast<DriverSource*>(&device)) return source->make_driver(config);
  throw UsageError("device '" + device.info().id +
                   "' cannot run runtime tasks (no driver in its backend)");
}

void DeviceDriver::enqueue_peer(void*, const DeviceDriver& src_driver, const void*, std::size_t) {
  throw Error(id() + ": no peer copy from " + src_driver.id());
}

void DeviceDriver::enqueue_write_back(const HostRegion& dst, const void* src, DoneCallback done,
                                      void* user) {
  enqueue_d2h(dst, src);
  notify(done, user);
}

void* DeviceDriver::adopt_external(void*, std::size_t) {
  throw UsageError(id() +
                   " cannot take memory allocated outside the runtime (its buffers are not raw "
                   "device pointers); register host memory instead");
}

void DeviceDriver::copy_from_host(void*, const HostRegion&) {
  throw Error(id() + ": no synchronous copy from the host (it takes no external memory)");
}

void DeviceDriver::copy_device_2d(void*, std::size_t, const void*, std::size_t, std::size_t,
                                  std::size_t) {
  throw UsageError(id() +
                   " cannot copy between regions of its memory (it takes no memory allocated "
                   "outside the runtime); register host memory instead");
}

namespace {

// One probe's notify: heap-allocated, so that a callback arriving after the prober gave up on it
// frees it instead of writing to a stack frame that has gone.
struct RoundTrip {
  std::mutex mutex;
  std::condition_variable arrived;
  bool done = false;
  bool failed = false;
  bool abandoned = false;

  static void on_done(void* user, const char* error) {
    auto* self = static_cast<RoundTrip*>(user);
    std::unique_lock lock(self->mutex);
    if (self->abandoned) {
      lock.unlock();
      delete self;
      return;
    }
    self->done = true;
    self->failed = error != nullptr;
    self->arrived.notify_one();
  }
};

}  // namespace

double DeviceDriver::probe_round_trip(int samples) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) {
    auto* probe = new RoundTrip;
    const auto start = Clock::now();
    try {
      notify(&RoundTrip::on_done, probe);
    } catch (...) {
      delete probe;  // never enqueued: no callback will come
      return -1;
    }
    std::unique_lock lock(probe->mutex);
    if (!probe->arrived.wait_for(lock, std::chrono::seconds(1), [&] { return probe->done; })) {
      probe->abandoned = true;  // the callback frees it
      return -1;
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const bool failed = probe->failed;
    lock.unlock();
    delete probe;
    if (failed) return -1;
    seconds.push_back(elapsed);
  }
  if (seconds.empty()) return -1;
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace device
}  // namespace conveyor
