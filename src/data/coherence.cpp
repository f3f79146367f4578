#include "data/coherence.hpp"

#include <fmt/format.h>

#include "conveyor/error.hpp"

namespace conveyor::detail {
namespace {
// The data whose lock this thread holds while allocating: eviction must skip it (try_lock on a
// mutex the thread already owns is undefined).
thread_local const DataState* tl_preparing = nullptr;

struct Preparing {
  explicit Preparing(const DataState& d) { tl_preparing = &d; }
  ~Preparing() { tl_preparing = nullptr; }
};
}  // namespace

const char* to_string(Msi s) {
  switch (s) {
    case Msi::Invalid:
      return "I";
    case Msi::Shared:
      return "S";
    case Msi::Modified:
      return "M";
  }
  return "?";
}

std::string DataState::describe() const {
  std::string label = name.empty() ? std::string("data") : fmt::format("'{}'", name);
  if (cols == 1) return fmt::format("{} (vector of {} bytes)", label, bytes());
  return fmt::format("{} ({}x{} matrix of {}-byte elements, ld {})", label, rows, cols, elem_size,
                     ld);
}

CoherenceEngine::CoherenceEngine(Coherence policy, DeviceCopy device_copy,
                                 std::vector<runtime::DeviceDriver*> drivers,
                                 std::uint64_t memory_limit, TransferStats& stats,
                                 runtime::Trace* trace)
    : policy_(policy),
      device_copy_(device_copy),
      drivers_(std::move(drivers)),
      stats_(stats),
      trace_(trace) {
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    int space = static_cast<int>(i) + 1;
    memories_.push_back(std::make_unique<DeviceMemory>(*drivers_[i], space, memory_limit, stats_));
    memories_.back()->set_evict(
        [this, space](std::size_t missing) { return evict(space, missing); });
  }
}

CoherenceEngine::~CoherenceEngine() = default;

void CoherenceEngine::init(DataState& d) const {
  d.replicas.assign(spaces(), Replica{});
  d.replicas[kHostSpace].block = d.host;
  d.replicas[kHostSpace].state = Msi::Modified;  // the user's memory is the only copy
}

void CoherenceEngine::fetch_to_host(DataState& d) {
  std::lock_guard lock(d.mutex);
  fetch_to_host_locked(d);
}

void CoherenceEngine::fetch_to_host_locked(DataState& d) {
  if (valid(d.replicas[kHostSpace].state)) return;
  int src = -1;
  for (int s = 1; s < spaces(); ++s) {
    if (d.replicas[s].state == Msi::Modified) {
      src = s;
      break;
    }
    if (src < 0 && d.replicas[s].state == Msi::Shared) src = s;
  }
  if (src < 0) throw Error(fmt::format("internal: no valid replica of {}", d.describe()));
  runtime::DeviceDriver& driver = *drivers_[src - 1];
  double start = trace_ ? trace_->now_us() : 0;
  driver.copy_to_host(d.host_region(), d.replicas[src].block);
  if (trace_)
    trace_->add(src + 1, runtime::kD2hTid, "copy d2h", "transfer", start, trace_->now_us());
  stats_.count_copy(src, kHostSpace, d.bytes());
  d.replicas[kHostSpace].state = Msi::Shared;
  if (d.replicas[src].state == Msi::Modified) d.replicas[src].state = Msi::Shared;
}

void CoherenceEngine::commit_host_write(DataState& d) {
  std::lock_guard lock(d.mutex);
  for (auto& r : d.replicas) r.state = Msi::Invalid;
  d.replicas[kHostSpace].state = Msi::Modified;
}

void* CoherenceEngine::prepare_on_device(DataState& d, int space, Access mode) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  runtime::DeviceDriver& driver = *drivers_[space - 1];
  bool need_copy = reads(mode) && (policy_ == Coherence::Naive || !valid(r.state));
  if (need_copy && device_copy_ == DeviceCopy::PeerDirect) {
    // peer-direct: the task uses a peer's valid replica in place (pinned there); nothing is copied
    // or counted, the kernel reads (and writes) it over the link.
    if (int src = peer_direct_source(d, space); src > 0) {
      ++d.replicas[src].pins;
      r.direct_from.push_back(src);
      return d.replicas[src].block;
    }
  }
  if (!r.block) {
    Preparing preparing(d);
    r.block = memory(space).allocate(d.bytes(), d.describe());
  }
  if (need_copy) {
    if (!valid(d.replicas[kHostSpace].state)) {
      int src = -1;
      for (int s = 1; s < spaces(); ++s)
        if (s != space && valid(d.replicas[s].state) &&
            (src < 0 || d.replicas[s].state == Msi::Modified))
          src = s;
      if (src < 0) throw Error(fmt::format("internal: no valid replica of {}", d.describe()));
      if (device_copy_ != DeviceCopy::HostStaged && driver.can_peer_from(*drivers_[src - 1])) {
        driver.enqueue_peer(r.block, *drivers_[src - 1], d.replicas[src].block, d.bytes());
        stats_.count_copy(src, space, d.bytes());
        r.state = Msi::Shared;
        ++r.pins;
        return r.block;
      }
      fetch_to_host_locked(d);  // host-staged: device -> host now, host -> device below
    }
    driver.enqueue_h2d(r.block, d.host_region());
    stats_.count_copy(kHostSpace, space, d.bytes());
    r.state = Msi::Shared;
    d.replicas[kHostSpace].state = Msi::Shared;
  }
  ++r.pins;
  return r.block;
}

void CoherenceEngine::finish_on_device(DataState& d, int space, Access mode) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  if (policy_ == Coherence::Naive) {
    if (writes(mode)) {
      drivers_[space - 1]->enqueue_d2h(d.host_region(), r.block);
      stats_.count_copy(space, kHostSpace, d.bytes());
      for (auto& other : d.replicas) other.state = Msi::Invalid;
      d.replicas[kHostSpace].state = Msi::Modified;
    }
    r.state = Msi::Invalid;  // naive keeps nothing on the device between tasks
    return;
  }
  if (writes(mode)) {
    // peer-direct: the task wrote the peer's replica in place (the only direct user of the data
    // now: a writer waits for every earlier reader).
    int target = r.direct_from.empty() ? space : r.direct_from.back();
    for (auto& other : d.replicas) other.state = Msi::Invalid;
    d.replicas[target].state = Msi::Modified;
  }
}

bool CoherenceEngine::valid_in(DataState& d, int space) {
  std::lock_guard lock(d.mutex);
  return valid(d.replicas[space].state);
}

std::size_t CoherenceEngine::bytes_missing(DataState& d, int space, Access mode) {
  if (!reads(mode)) return 0;
  if (policy_ == Coherence::Naive && space != kHostSpace) return d.bytes();
  return valid_in(d, space) ? 0 : d.bytes();
}

void CoherenceEngine::unpin(DataState& d, int space) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  // While peer-direct readers of the data are in flight on `space`, its own replica is invalid
  // and cannot be in use (validating it takes a write, which waits for those readers).
  if (!r.direct_from.empty()) {
    --d.replicas[r.direct_from.back()].pins;
    r.direct_from.pop_back();
    return;
  }
  --r.pins;
}

int CoherenceEngine::peer_direct_source(DataState& d, int space) const {
  // Only where peer-copy would copy from a peer: with the host valid, a peer's replica may still
  // be arriving on that peer's lane (it is marked valid when enqueued), so the host supplies it.
  if (policy_ == Coherence::Naive || valid(d.replicas[space].state) ||
      valid(d.replicas[kHostSpace].state))
    return -1;
  int src = -1;
  for (int s = 1; s < spaces(); ++s)
    if (s != space && valid(d.replicas[s].state) &&
        drivers_[space - 1]->can_read_peer(*drivers_[s - 1]) &&
        (src < 0 || d.replicas[s].state == Msi::Modified))
      src = s;
  return src;
}

void CoherenceEngine::drop_replicas(DataState& d) {
  std::lock_guard lock(d.mutex);
  fetch_to_host_locked(d);
  for (int s = 1; s < spaces(); ++s) {
    Replica& r = d.replicas[s];
    if (r.block) memory(s).release(r.block, d.bytes());
    r = Replica{};
  }
  d.replicas[kHostSpace].state = Msi::Modified;
}

bool CoherenceEngine::evict(int space, std::size_t missing) {
  if (!for_each_) return false;
  std::size_t freed = 0;
  for_each_([&](DataState& d) {
    if (&d == tl_preparing) return true;
    std::unique_lock lock(d.mutex, std::try_to_lock);
    if (!lock.owns_lock()) return true;  // busy (possibly the caller's own data): skip it
    Replica& r = d.replicas[space];
    if (!r.block || r.pins > 0 || r.state == Msi::Modified) return true;
    if (r.state == Msi::Shared) {
      bool other = false;
      for (int s = 0; s < spaces(); ++s)
        if (s != space && valid(d.replicas[s].state)) other = true;
      if (!other) return true;
    }
    memory(space).free(r.block, d.bytes());
    r = Replica{};
    freed += d.bytes();
    return freed < missing;
  });
  return freed > 0;
}

}  // namespace conveyor::detail
