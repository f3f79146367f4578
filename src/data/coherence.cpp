#include "data/coherence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <string>

#include "conveyor/error.hpp"

namespace conveyor::data {
namespace {
// The data whose lock this thread holds while allocating: eviction must skip it (try_lock on a
// mutex the thread already owns is undefined).
thread_local const DataState* tl_preparing = nullptr;

// Whether a copy home of the data is in flight from any space. Another one must not start then:
// a stale copy (its replica rewritten meanwhile elsewhere) could land after the fresh one.
bool writing_back(const DataState& d) {
  for (const auto& r : d.replicas)
    if (r.writing_back) return true;
  return false;
}

int queued_readers(Replica& r) {
  return std::atomic_ref<int>(r.queued_readers).load(std::memory_order_relaxed);
}

struct Preparing {
  explicit Preparing(const DataState& d) { tl_preparing = &d; }
  ~Preparing() { tl_preparing = nullptr; }
};

// Takes d's replica in `space` out of that space's recency list (head..tail), under its lru_mutex.
void unlink(DataState*& head, DataState*& tail, DataState& d, int space) {
  Replica& r = d.replicas[space];
  (r.lru_prev ? r.lru_prev->replicas[space].lru_next : head) = r.lru_next;
  (r.lru_next ? r.lru_next->replicas[space].lru_prev : tail) = r.lru_prev;
  r.lru_prev = r.lru_next = nullptr;
  r.in_lru = false;
}
}  // namespace

/// One device memory space: its allocator and its recency list.
struct CoherenceEngine::Space {
  std::unique_ptr<DeviceMemory> memory;
  // Least recently used first. Taken after a data's lock (touch, forget), or first with the
  // data locks only tried (evict), so the two orders cannot deadlock.
  std::mutex lru_mutex;
  DataState* head = nullptr;
  DataState* tail = nullptr;
  std::atomic<int> write_backs{0};      ///< enqueued, not landed
  std::atomic<std::size_t> landing{0};  ///< their bytes: room that is on its way
  /// The error of a write-back that failed (set once, under failure_mutex): the room it was to
  /// free will not come, so a task waiting for room fails with it instead of waiting for ever.
  std::mutex failure_mutex;
  std::string failure;
  /// Write-backs that eviction started, enqueued once the data lock of the caller is released
  /// (driver thread only).
  std::vector<WriteBack*> started;
  /// Eviction by next use (driver thread only): the current ranking's epoch (rank_next_uses), and
  /// the candidates of one eviction in their order, reused.
  std::uint32_t next_use_epoch = 0;
  std::vector<std::pair<std::uint64_t, DataState*>> order;
};

struct CoherenceEngine::WriteBack {
  CoherenceEngine* engine = nullptr;
  DataState* data = nullptr;
  int space = 0;
  std::size_t bytes = 0;
  WriteBackKind kind = WriteBackKind::Early;
  device::HostRegion home;
  const void* block = nullptr;
  double start_us = 0;
};

CoherenceEngine::CoherenceEngine(Coherence policy, DeviceCopy device_copy,
                                 std::vector<device::DeviceDriver*> drivers,
                                 std::uint64_t memory_limit, TransferStats& stats,
                                 device::Trace* trace)
    : policy_(policy),
      device_copy_(device_copy),
      drivers_(std::move(drivers)),
      stats_(stats),
      trace_(trace),
      clock_(drivers_.empty() ? nullptr : drivers_[0]->virtual_clock()) {
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    int space = static_cast<int>(i) + 1;
    auto s = std::make_unique<Space>();
    s->memory = std::make_unique<DeviceMemory>(*drivers_[i], space, memory_limit, stats_);
    s->memory->set_evict([this, space](std::size_t missing, std::size_t bytes) {
      return evict(space, missing, bytes);
    });
    spaces_.push_back(std::move(s));
  }
}

CoherenceEngine::~CoherenceEngine() {
  // The callbacks of write-backs still landing use this engine.
  std::unique_lock lock(pending_mutex_);
  if (pending_ == 0) return;
  if (!clock_) {
    pending_cv_.wait(lock, [&] { return pending_ == 0; });
    return;
  }
  bool dozing = true;  // they land only when virtual time moves
  pending_dozing_ = &dozing;
  doze(pending_cv_, lock, dozing);
}

void CoherenceEngine::doze(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                           bool& dozing) {
  // Stops running until a landing clears the flag and wakes this thread, then runs on its turn
  // (with `lock` released meanwhile: the thread whose turn it is may need it).
  clock_->running(-1);
  cv.wait(lock, [&] { return !dozing; });
  lock.unlock();
  clock_->take_turn(&dozing);
  lock.lock();
}

void CoherenceEngine::rouse(bool* dozing) {
  *dozing = false;
  clock_->wake(dozing);  // counted running and queued for the turn before it wakes
}

DeviceMemory& CoherenceEngine::memory(int space) { return *spaces_[space - 1]->memory; }

void CoherenceEngine::init(DataState& d, void* home_block) const {
  d.replicas.assign(spaces(), Replica{});
  d.replicas[kHostSpace].block = d.host;
  // The user's memory is the only copy: the host's, or the device's (no host copy until a host
  // user needs one).
  d.replicas[d.home].state = Msi::Modified;
  if (d.device_home()) d.replicas[d.home].block = home_block;
}

void CoherenceEngine::ensure_host(DataState& d) {
  if (d.host) return;
  d.host_staging = std::make_unique_for_overwrite<char[]>(d.bytes());
  d.host = d.host_staging.get();
  d.replicas[kHostSpace].block = d.host;
}

// ---- recency ----------------------------------------------------------------------------------

void CoherenceEngine::touch(DataState& d, int space) {
  if (space == d.home) return;  // the user's memory: never evicted, so never in the list
  Space& s = *spaces_[space - 1];
  std::lock_guard lock(s.lru_mutex);
  Replica& r = d.replicas[space];
  if (r.in_lru && s.tail == &d) return;
  if (r.in_lru) unlink(s.head, s.tail, d, space);
  r.lru_prev = s.tail;
  r.lru_next = nullptr;
  (s.tail ? s.tail->replicas[space].lru_next : s.head) = &d;
  s.tail = &d;
  r.in_lru = true;
}

void CoherenceEngine::forget(DataState& d, int space) {
  Space& s = *spaces_[space - 1];
  std::lock_guard lock(s.lru_mutex);
  Replica& r = d.replicas[space];
  if (r.in_lru) unlink(s.head, s.tail, d, space);
}

// ---- host side --------------------------------------------------------------------------------

void CoherenceEngine::await_write_backs(DataState& d, std::unique_lock<std::mutex>& lock) {
  // A write-back lands in the user's memory: nobody reads or writes that memory before it has.
  // On a virtual clock the copy lands only once virtual time moves, so this thread stops running
  // while it waits; on_write_back wakes it for its turn.
  while (writing_back(d)) {
    if (!clock_) {
      d.moved.wait(lock);
      continue;
    }
    bool dozing = true;
    d.dozing.push_back(&dozing);
    doze(d.moved, lock, dozing);
  }
}

void CoherenceEngine::fetch_to_host(DataState& d) {
  std::unique_lock lock(d.mutex);
  fetch_to_host_locked(d, lock);
}

void CoherenceEngine::fetch_to_host_locked(DataState& d, std::unique_lock<std::mutex>& lock) {
  await_write_backs(d, lock);
  if (!d.lost.empty()) throw DeviceError(d.lost);
  if (valid(d.replicas[kHostSpace].state)) return;
  // From the Modified replica first, then any Shared one: when a device fails the copy (it may
  // have landed in part), another device's whole replica still brings the data home.
  std::vector<int> sources;
  for (Msi state : {Msi::Modified, Msi::Shared})
    for (int s = 1; s < spaces(); ++s)
      if (d.replicas[s].state == state) sources.push_back(s);
  if (sources.empty()) throw Error(fmt::format("internal: no valid replica of {}", d.describe()));
  ensure_host(d);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const int src = sources[i];
    double start = trace_ ? trace_->now_us() : 0;
    try {
      drivers_[src - 1]->copy_to_host(d.host_region(), d.replicas[src].block);
    } catch (const std::exception& e) {
      d.host_damaged = true;
      if (i + 1 < sources.size()) continue;
      throw DeviceError(fmt::format(
          "{}: its latest contents are on {} only, which failed to copy them home ({}); the "
          "host's memory holds an older state, or a mix where the failed copy landed in part",
          d.describe(), drivers_[src - 1]->id(), e.what()));
    }
    if (trace_)
      trace_->add(src + 1, device::kD2hTid, "copy d2h", "transfer", start, trace_->now_us());
    stats_.count_copy(src, kHostSpace, d.bytes());
    d.host_damaged = false;
    d.replicas[kHostSpace].state = Msi::Shared;
    if (d.replicas[src].state == Msi::Modified) d.replicas[src].state = Msi::Shared;
    return;
  }
}

void CoherenceEngine::fetch_home(DataState& d) {
  std::unique_lock lock(d.mutex);
  fetch_home_locked(d, lock);
}

void CoherenceEngine::fetch_home_locked(DataState& d, std::unique_lock<std::mutex>& lock) {
  if (!d.device_home()) {
    fetch_to_host_locked(d, lock);
    return;
  }
  await_write_backs(d, lock);
  if (!d.lost.empty()) throw DeviceError(d.lost);
  Replica& home = d.replicas[d.home];
  device::DeviceDriver& driver = *drivers_[d.home - 1];
  if (!valid(home.state)) copy_home_from_host(d, lock);
  if (!d.home_region || d.home_region_version == d.version) return;
  // A strided home: its block (contiguous, as every device replica) back into the user's region.
  try {
    driver.copy_device_2d(d.home_region, d.home_pitch, home.block, d.rows * d.elem_size,
                          d.rows * d.elem_size, d.cols);
  } catch (const std::exception& e) {
    throw DeviceError(fmt::format(
        "{}: its latest contents could not be copied into its strided region on {} ({}); that "
        "region holds an older state, or a mix where the copy landed in part",
        d.describe(), driver.id(), e.what()));
  }
  d.home_region_version = d.version;
}

void CoherenceEngine::copy_home_from_host(DataState& d, std::unique_lock<std::mutex>& lock) {
  Replica& home = d.replicas[d.home];
  // From the host, after bringing it there from another device if it is there (host-staged: the
  // copy to the home is synchronous, from this thread, not on the home device's lane).
  fetch_to_host_locked(d, lock);
  device::DeviceDriver& driver = *drivers_[d.home - 1];
  double start = trace_ ? trace_->now_us() : 0;
  try {
    driver.copy_from_host(home.block, d.host_region());
  } catch (const std::exception& e) {
    throw DeviceError(fmt::format(
        "{}: its latest contents could not be copied to its home on {} ({}); the device memory "
        "there holds an older state, or a mix where the copy landed in part",
        d.describe(), driver.id(), e.what()));
  }
  if (trace_)
    trace_->add(d.home + 1, device::kH2dTid, "copy h2d", "transfer", start, trace_->now_us());
  stats_.count_copy(kHostSpace, d.home, d.bytes());
  home.state = Msi::Shared;
  if (d.replicas[kHostSpace].state == Msi::Modified) d.replicas[kHostSpace].state = Msi::Shared;
}

void CoherenceEngine::discard_after_failure(DataState& d, int space, Access mode) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  if (r.state == Msi::Shared) {
    // The copy that filled it may be the operation that failed: copied again when next needed.
    // A Shared replica is never the only valid one, so nothing is lost.
    r.state = Msi::Invalid;
    return;
  }
  if (r.state != Msi::Modified || !writes(mode)) return;
  // The home's memory, the user's, holds the data's last state there. A task that wrote the home
  // itself wrote it in place: it keeps what the kernel left, as a CPU task's memory does.
  if (space == d.home) return;
  r.state = Msi::Invalid;
  d.replicas[d.home].state = Msi::Modified;
  ++d.version;
  if (d.host_damaged && d.lost.empty() && !d.device_home())
    d.lost = fmt::format(
        "{}: lost: a task failed writing it on {} after a copy home of it had failed part-way; "
        "its memory holds a mix",
        d.describe(), drivers_[space - 1]->id());
}

void CoherenceEngine::damaged_valid_host(DataState& d, int copied_from) {
  // The host's copy became the data's state while this copy home was in flight (the task that
  // wrote the replica after it failed: discard_after_failure), and the copy landed on it in part.
  // Another whole replica takes over; without one, the data is lost.
  d.replicas[kHostSpace].state = Msi::Invalid;
  for (int s = 1; s < spaces(); ++s)
    if (valid(d.replicas[s].state)) return;
  d.replicas[kHostSpace].state = Msi::Modified;  // what reads and unregister find, and report
  if (d.lost.empty())
    d.lost = fmt::format(
        "{}: lost: a copy home of it from {} failed part-way after a failed task had left the "
        "host's copy as its only state; its memory holds a mix",
        d.describe(), drivers_[copied_from - 1]->id());
}

void CoherenceEngine::commit_host_write(DataState& d) {
  std::lock_guard lock(d.mutex);
  d.host_damaged = false;
  d.lost.clear();
  drop_prefetched(d);
  for (auto& r : d.replicas) r.state = Msi::Invalid;
  d.replicas[kHostSpace].state = Msi::Modified;
  ++d.version;
}

void CoherenceEngine::prepare_host(DataState& d, Access mode) {
  std::unique_lock lock(d.mutex);
  if (reads(mode)) {
    fetch_to_host_locked(d, lock);
    return;
  }
  await_write_backs(d, lock);
  ensure_host(d);
  d.host_damaged = false;  // written whole by the task
  d.lost.clear();
  // Taken over now rather than after the task: a device replica left Modified until then could
  // be evicted meanwhile, and its write-back would land on what the task writes.
  drop_prefetched(d);
  for (auto& r : d.replicas) r.state = Msi::Invalid;
  d.replicas[kHostSpace].state = Msi::Modified;
  ++d.version;
}

// ---- device side ------------------------------------------------------------------------------

int CoherenceEngine::reserve_on_device(DataState& d, int space, Access mode) {
  // Eviction may start write-backs; they are enqueued only after the data's lock is released. A
  // driver may run a completion at once on this thread (PoCL does when the copy has finished
  // already), and on_write_back takes the runtime's lock, which other threads hold while they
  // take data locks (a scheduler asking what is valid where): enqueued under this lock, the two
  // orders deadlock.
  std::vector<WriteBack*>& started = spaces_[space - 1]->started;
  int reservation = kNoRoom;
  try {
    reservation = reserve_locked(d, space, mode);
  } catch (...) {
    notify_write_backs(space, started);
    started.clear();
    throw;
  }
  notify_write_backs(space, started);
  started.clear();
  if (reservation == kNoRoom) {
    Space& s = *spaces_[space - 1];
    std::lock_guard lock(s.failure_mutex);
    if (!s.failure.empty())
      throw DeviceError(fmt::format("no room for {} on {}: a write-back to the host failed ({})",
                                    d.describe(), drivers_[space - 1]->id(), s.failure));
  }
  return reservation;
}

int CoherenceEngine::reserve_locked(DataState& d, int space, Access mode) {
  std::unique_lock lock(d.mutex);
  Replica& r = d.replicas[space];
  bool need_copy = reads(mode) && (policy_ == Coherence::Naive || !valid(r.state));
  if (need_copy && device_copy_ == DeviceCopy::PeerDirect) {
    // peer-direct: the task uses a peer's valid replica in place (pinned there); nothing is copied
    // or counted, the kernel reads (and writes) it over the link.
    if (int src = peer_direct_source(d, space); src > 0) {
      ++d.replicas[src].pins;
      r.direct_from.push_back(src);
      return src;
    }
  }
  if (!r.block) {
    Preparing preparing(d);
    void* block = memory(space).allocate(d.bytes(), d.describe());
    if (!block) return kNoRoom;  // full of replicas in use: the caller waits and asks again
    r.block = block;
  }
  touch(d, space);
  ++r.pins;
  if (r.prefetched) {
    r.prefetched = false;
    if (valid(r.state)) stats_.count_prefetch_used(space);
  }
  return kLocal;
}

void* CoherenceEngine::prepare_on_device(DataState& d, int space, Access mode, int* peer_source,
                                         int reservation) {
  *peer_source = 0;
  if (reservation == kNotReserved) reservation = reserve_on_device(d, space, mode);
  if (reservation == kNoRoom) return nullptr;
  std::unique_lock lock(d.mutex);
  if (reservation > 0) return d.replicas[reservation].block;  // peer-direct
  Replica& r = d.replicas[space];
  device::DeviceDriver& driver = *drivers_[space - 1];
  bool need_copy = reads(mode) && (policy_ == Coherence::Naive || !valid(r.state));
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
        // The source must outlive the copy on this lane: pinned until the task ends.
        ++d.replicas[src].pins;
        *peer_source = src;
        r.state = Msi::Shared;
        return r.block;
      }
      fetch_to_host_locked(d, lock);  // host-staged: device -> host now, host -> device below
    }
    driver.enqueue_h2d(r.block, d.host_region());
    stats_.count_copy(kHostSpace, space, d.bytes());
    r.state = Msi::Shared;
    d.replicas[kHostSpace].state = Msi::Shared;
  }
  return r.block;
}

void CoherenceEngine::finish_on_device(DataState& d, int space, Access mode) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  if (writes(mode)) {
    ++d.version;  // a write-back still landing is stale now
    drop_prefetched(d);
  }
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
  // Without the data's lock (MsiCell): schedulers ask under the runtime's lock.
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

void CoherenceEngine::unpin(DataState& d, int space, int reservation) {
  if (reservation <= 0) {
    std::lock_guard lock(d.mutex);
    --d.replicas[space].pins;
    return;
  }
  {
    std::lock_guard lock(d.mutex);
    auto& from = d.replicas[space].direct_from;
    auto it = std::find(from.begin(), from.end(), reservation);
    if (it != from.end()) from.erase(it);
    --d.replicas[reservation].pins;
  }
  if (wake_) wake_(reservation);  // that space's driver may be waiting for this room
}

void CoherenceEngine::unpin_peer_source(DataState& d, int space) {
  unpin(d, space, CoherenceEngine::kLocal);  // the source's own pin, not a peer-direct one
  if (wake_) wake_(space);                   // that space's driver may be waiting for this room
}

void CoherenceEngine::drop_replicas(DataState& d) {
  std::unique_lock lock(d.mutex);
  // The device blocks go back even when the copy home fails (the error says what is lost).
  std::exception_ptr failed;
  try {
    fetch_home_locked(d, lock);
  } catch (const DeviceError&) {
    failed = std::current_exception();
  }
  drop_prefetched(d);
  for (int s = 1; s < spaces(); ++s) {
    Replica& r = d.replicas[s];
    forget(d, s);
    void* home_block = s == d.home ? r.block : nullptr;  // the user's: not the cache's to take
    if (r.block && !home_block) memory(s).release(r.block, d.bytes());
    r = Replica{};
    r.block = home_block;
  }
  if (d.device_home()) {  // the staging copy goes: the device memory is the data again
    d.replicas[kHostSpace] = Replica{};
    d.host = nullptr;
    d.host_staging.reset();
  }
  // A strided home's block is the runtime's, and this is the data's last step (partition refuses
  // device homes): the block goes, the user's region is the data. Unless the copy home failed:
  // the data stays registered, and its block may hold the only latest values, for another try
  // (unregister again, or the runtime's end).
  if (d.home_region && d.replicas[d.home].block && !failed) {
    drivers_[d.home - 1]->deallocate(d.replicas[d.home].block);
    d.replicas[d.home].block = nullptr;
  }
  d.replicas[d.home].state = Msi::Modified;
  if (failed) std::rethrow_exception(failed);
}

// ---- prefetch ---------------------------------------------------------------------------------

bool CoherenceEngine::prefetch(DataState& d, int space) {
  // Naive copies every input at launch anyway: nothing to gain.
  if (policy_ == Coherence::Naive) return true;
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  // Only from a valid host copy (not from a peer, not while a write-back is landing): the common
  // case, one copy on this lane, nothing pinned elsewhere.
  if (valid(r.state) || !valid(d.replicas[kHostSpace].state) || writing_back(d)) return true;
  if (!r.block) {
    r.block = memory(space).try_allocate(d.bytes());
    if (!r.block) return false;
  }
  touch(d, space);  // in the recency list before anything can throw: evictable like any block
  drivers_[space - 1]->enqueue_h2d(r.block, d.host_region());
  stats_.count_copy(kHostSpace, space, d.bytes());
  stats_.count_prefetch(space, d.bytes());
  r.state = Msi::Shared;
  d.replicas[kHostSpace].state = Msi::Shared;
  r.prefetched = true;
  return true;
}

void CoherenceEngine::note_queued(DataState& d, int space, int delta) {
  std::atomic_ref<int>(d.replicas[space].queued_readers)
      .fetch_add(delta, std::memory_order_relaxed);
}

void CoherenceEngine::drop_prefetched(DataState& d) {
  for (int s = 1; s < spaces(); ++s) {
    Replica& r = d.replicas[s];
    if (!r.prefetched) continue;
    r.prefetched = false;
    stats_.count_prefetch_dropped(s);
  }
}

// ---- eviction ---------------------------------------------------------------------------------

void CoherenceEngine::rank_next_uses(int space, std::span<DataState* const> reads) {
  Space& s = *spaces_[space - 1];
  if (++s.next_use_epoch == 0) s.next_use_epoch = 1;  // 0: never ranked
  const std::uint64_t epoch = std::uint64_t{s.next_use_epoch} << 32;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    std::uint64_t& next = reads[i]->replicas[space].next_use;
    if ((next & ~std::uint64_t{0xffffffff}) != epoch)
      next = epoch | std::min<std::size_t>(i, 0xfffffff);
  }
}

std::size_t CoherenceEngine::evict(int space, std::size_t missing, std::size_t bytes) {
  Space& s = *spaces_[space - 1];
  std::size_t freed = 0;
  std::vector<WriteBack*>& started = s.started;  // enqueued by reserve_on_device
  std::lock_guard list_lock(s.lru_mutex);
  // The candidates, needed furthest ahead first (Belady's choice over the tasks queued here): no
  // queued task reads it; queued beyond the ranked window (its readers' count); then by the place
  // of its first reader. Among equals, clean replicas first (freed now, no copy), then those of
  // the size asked for (the allocation takes their block as it is; a block of another size is
  // freed for real, and cudaFree waits for the device), then least recently used first. The key
  // is read without the data's lock: only this thread writes it,
  // and the replica's state is checked again under the lock below.
  // (Measured on the out-of-core Cholesky, 16 x 16 tiles through room for 16: 768 copies in with
  // clean-first recency, 980 with plain LRU, which writes back the tiles being accumulated to keep
  // the panel tiles that the next row of updates reads again anyway.)
  const std::uint64_t epoch = std::uint64_t{s.next_use_epoch} << 32;
  auto& order = s.order;
  order.clear();
  for (DataState* d = s.head; d; d = d->replicas[space].lru_next) {
    Replica& r = d->replicas[space];
    std::uint64_t distance = 0xffffffff;  // no queued reader
    if (s.next_use_epoch != 0 && (r.next_use & ~std::uint64_t{0xffffffff}) == epoch)
      distance = r.next_use & 0xfffffff;  // the place of its first reader
    else if (queued_readers(r) > 0)
      distance = 0xfffffffe;
    bool clean = !valid(r.state);
    for (int o = 0; o < spaces() && !clean; ++o) clean = o != space && valid(d->replicas[o].state);
    const bool fits = d->bytes() == bytes;
    order.emplace_back(distance << 2 | (clean ? 2 : 0) | (fits ? 1 : 0), d);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  // Room already on its way (earlier write-backs) counts: no more copies than needed.
  std::size_t coming = s.landing.load();
  if (coming >= missing) return 0;
  // Write-backs ahead: past the room asked for, the walk goes on in the same order over the
  // victims of the next evictions (write_back_ahead_ times the room asked for) and starts the
  // copies home of their Modified replicas now, beside the kernels, so that their room has landed
  // when an allocation asks for it instead of making that task wait for the copy. Only the replicas
  // this order takes next: writing home others (those no queued task reads, after each launch)
  // cleaned tiles that the next steps update again, which then went first among equals and came
  // back in (docs/results/runtime.md, "Eviction by next use").
  const std::size_t ahead = write_back_ahead_ * missing;
  std::size_t seen_ahead = 0;
  for (const auto& [key, d] : order) {
    const bool filling = freed + coming < missing;
    if (!filling && seen_ahead >= ahead) break;
    if (d == tl_preparing) continue;
    std::unique_lock lock(d->mutex, std::try_to_lock);
    if (!lock.owns_lock()) continue;  // busy right now: not a victim this time
    Replica& r = d->replicas[space];
    // Pinned ones (tasks in flight, or the task waiting for this room) are never taken, nor
    // written home ahead: an enqueued task may be writing them.
    if (!r.block || r.pins > 0) continue;
    if (r.writing_back) {
      // Written home ahead, next in this order: its room is on its way (an eviction's own
      // write-backs are in `landing` already).
      if (r.written_ahead) (filling ? coming : seen_ahead) += d->bytes();
      continue;
    }
    int elsewhere = -1;  // another space holding a valid replica
    for (int o = 0; o < spaces() && elsewhere < 0; ++o)
      if (o != space && valid(d->replicas[o].state)) elsewhere = o;
    if (!valid(r.state) || elsewhere >= 0) {
      if (!filling) {  // clean: the eviction that reaches it frees it at once
        seen_ahead += d->bytes();
        continue;
      }
      // A Modified replica hands its ownership to the Shared copy it leaves: with the host
      // stale, exactly one replica stays Modified, and copies are taken from that one only.
      // Otherwise a Shared replica whose own peer copy is still landing could be chosen as
      // a source and read before it is filled. (Every such copy pins its source, the
      // Modified one, until its task ends: unpinned here, so the heir has landed.)
      if (r.state == Msi::Modified) d->replicas[elsewhere].state = Msi::Modified;
      unlink(s.head, s.tail, *d, space);
      // Back to the allocation cache, not freed: the allocation this eviction makes room for
      // takes it as it is when the sizes match (no cudaFree, which waits for the device).
      memory(space).release(r.block, d->bytes());
      r.block = nullptr;
      r.state = Msi::Invalid;
      if (r.prefetched) {
        r.prefetched = false;
        stats_.count_prefetch_dropped(space);
      }
      freed += d->bytes();
      stats_.count_eviction(space);
      if (trace_) {
        double now = trace_->now_us();
        trace_->add(space + 1, device::kD2hTid, "evict", "memory", now, now);
      }
    } else if (!writing_back(*d)) {
      started.push_back(
          start_write_back(*d, space, filling ? WriteBackKind::Evicting : WriteBackKind::Ahead));
      (filling ? coming : seen_ahead) += d->bytes();
    }
  }
  return freed;
}

void CoherenceEngine::notify_write_backs(int space, const std::vector<WriteBack*>& started) {
  // Without any lock: a driver may call back at once (PoCL does when the copy is done already),
  // and the callback takes the data's lock. The data cannot go away meanwhile: unregistering it
  // waits for its write-back.
  // Only this driver thread enqueues on the lane, so nothing reaches the block in between.
  device::DeviceDriver& driver = *drivers_[space - 1];
  for (WriteBack* wb : started) {
    try {
      // Unpinned: the tasks that wrote it have completed, so the copy need not wait behind the
      // lane's kernels (drivers with a copy engine run it there).
      driver.enqueue_write_back(wb->home, wb->block, &CoherenceEngine::on_write_back, wb);
    } catch (const std::exception&) {
      on_write_back(wb, "the write-back could not be enqueued");  // the replica stays Modified
    }
  }
}

CoherenceEngine::WriteBack* CoherenceEngine::start_write_back(DataState& d, int space,
                                                              WriteBackKind kind) {
  Space& s = *spaces_[space - 1];
  Replica& r = d.replicas[space];
  auto wb = std::make_unique<WriteBack>();
  wb->engine = this;
  wb->data = &d;
  wb->space = space;
  wb->bytes = d.bytes();
  wb->kind = kind;
  ensure_host(d);
  wb->home = d.host_region();
  wb->block = r.block;
  wb->start_us = trace_ ? trace_->now_us() : 0;
  // From here the block stays and host users wait until the copy has landed.
  r.writing_back = true;
  r.write_back_version = d.version;
  stats_.count_copy(space, kHostSpace, d.bytes());
  if (kind != WriteBackKind::Early) stats_.count_write_back(space, d.bytes());
  if (kind == WriteBackKind::Evicting) s.landing.fetch_add(d.bytes());
  r.written_ahead = kind == WriteBackKind::Ahead;
  s.write_backs.fetch_add(1);
  {
    std::lock_guard lock(pending_mutex_);
    ++pending_;
  }
  return wb.release();
}

CoherenceEngine::WriteBack* CoherenceEngine::begin_early_write_back(DataState& d, int space) {
  std::lock_guard lock(d.mutex);
  Replica& r = d.replicas[space];
  // Not for a device home: its latest contents belong on the device, where wait_all leaves them.
  if (policy_ != Coherence::Coherent || r.state != Msi::Modified || r.pins > 0 || writing_back(d) ||
      d.device_home())
    return nullptr;
  return start_write_back(d, space, WriteBackKind::Early);
}

void CoherenceEngine::on_write_back(void* user, const char* error) {
  std::unique_ptr<WriteBack> wb(static_cast<WriteBack*>(user));
  CoherenceEngine& self = *wb->engine;
  Space& s = *self.spaces_[wb->space - 1];
  // Other devices whose Modified replica of the data could not be written back while this copy
  // was in flight (a stale one: the data was written there since) may be waiting for that room.
  std::uint64_t others = 0;  // bit per space, up to 64 (the rest are woken by their own events)
  {
    DataState& d = *wb->data;
    std::lock_guard lock(d.mutex);
    Replica& r = d.replicas[wb->space];
    r.writing_back = false;
    r.written_ahead = false;
    for (int o = 1; o < self.spaces() && o < 64; ++o)
      if (o != wb->space && d.replicas[o].state == Msi::Modified) others |= 1ull << o;
    // A failed copy leaves the replica Modified (nothing is lost; it is simply not evicted); a
    // write since the copy was enqueued leaves the host stale.
    if (error) {
      d.host_damaged = true;
      if (valid(d.replicas[kHostSpace].state)) self.damaged_valid_host(d, wb->space);
    }
    if (!error && d.version == r.write_back_version) {
      d.host_damaged = false;
      d.replicas[kHostSpace].state = Msi::Shared;
      if (r.state == Msi::Modified) r.state = Msi::Shared;
    }
    for (bool* dozing : d.dozing) self.rouse(dozing);
    d.dozing.clear();
    d.moved.notify_all();
  }
  if (error) {
    std::lock_guard lock(s.failure_mutex);
    if (s.failure.empty()) s.failure = error;
  }
  if (self.trace_)
    self.trace_->add(wb->space + 1, device::kD2hTid,
                     wb->kind == WriteBackKind::Evicting ? "write-back"
                     : wb->kind == WriteBackKind::Ahead  ? "write-back ahead"
                                                         : "early write-back",
                     "memory", wb->start_us, self.trace_->now_us());
  if (wb->kind == WriteBackKind::Evicting) s.landing.fetch_sub(wb->bytes);
  s.write_backs.fetch_sub(1);
  if (self.wake_) {
    self.wake_(wb->space);
    for (int o = 1; o < 64; ++o)
      if (others >> o & 1) self.wake_(o);
  }
  std::lock_guard lock(self.pending_mutex_);
  if (--self.pending_ > 0) return;
  if (self.pending_dozing_) self.rouse(self.pending_dozing_);
  self.pending_dozing_ = nullptr;
  self.pending_cv_.notify_all();
}

int CoherenceEngine::write_backs_in_flight(int space) const {
  return spaces_[space - 1]->write_backs.load();
}

void CoherenceEngine::fill(RuntimeStats& out) const {
  for (std::size_t i = 0; i < spaces_.size() && i < out.spaces.size(); ++i) {
    out.spaces[i].peak_bytes = spaces_[i]->memory->peak();
    out.spaces[i].limit_bytes = spaces_[i]->memory->limit();
    out.peak_device_bytes = std::max(out.peak_device_bytes, out.spaces[i].peak_bytes);
  }
}

void CoherenceEngine::reset_peaks() {
  for (auto& s : spaces_) s->memory->reset_peak();
}

}  // namespace conveyor::data
